"""The hooks room: the control channel a host steers a run through.

* `HookRunner` — one per run; awaits the user's hook at each hook point of
  the run loop's EventChannel, contains what it raises, and enforces its directive
  (veto, queued injection, pause, abort) at safe points;
* `RunHandle` — ``Agent.run_handle``: pause / resume / abort / inject from
  any thread, wake-ups marshalled onto the run's loop;
* `ConfirmAfterNToolCalls` — the built-in "continue?" hook;
* `RequestStartEmitter` — the opt-in request_start event;
* `build_injected_user_message`,
  `stream_callback_accepts_metadata`.

What does not belong here: the loop itself (``application/run``), the event vocabulary
and HookDirective (``domain/events.py``), AgentAborted (``domain/errors.py``).
"""
