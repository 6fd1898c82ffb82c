"""The session room: AgentSession, envelope save/restore, truncation, rebind onto another
provider, the media policy of envelopes and the per-turn store bookkeeping.

Modules: ``session`` (AgentSession and its turns), ``persistence`` (save, restore, rebind,
truncate), ``envelope`` (the v3 envelope out, the atomic write), ``restore`` (dialect
detection and conversion through ``application.history``), ``native`` (codec access and
legal cut points), ``history_config`` (session_history_config), ``media_policy``
(MediaStore markers), ``fingerprint`` and ``metadata``. No adapter is imported here.
"""
