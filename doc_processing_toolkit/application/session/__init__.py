"""The session room: AgentSession, envelope save/restore, truncation, rebind onto another
provider, the media policy of envelopes and the per-turn store bookkeeping.

Modules: ``session`` (AgentSession, composed of the parts below), ``state`` (the typed
`SessionState` and the `SessionAgent` protocol: the public Agent surface a session uses),
``turns`` (`TurnRunner`: the turns, through ``Agent.run_turn`` / ``Agent.stream_turn``),
``saving`` (`SessionSaver`: the envelope out, the per-turn store), ``restoring``
(`SessionRestorer`: the envelope in, rebind), ``editing`` (`HistoryEditor`: clear,
truncation, a compacted prefix), ``envelope`` (the v3 envelope out, the atomic write),
``restore`` (dialect detection and conversion through ``application.history``), ``native``
(codec access and legal cut points), ``history_config`` (session_history_config),
``media_policy`` (MediaStore markers), ``fingerprint`` and ``metadata`` (the typed
`SessionMetadata`), ``awaiting`` / ``approvals`` / ``resuming`` (a turn waiting for
approval: its record, `AgentSession.resume`, and `Agent.resume` from outside a session).
No adapter and not the Agent is imported here.
"""
