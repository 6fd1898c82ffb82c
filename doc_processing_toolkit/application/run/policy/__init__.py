"""The policy sub-room: a run's settings and the rules they configure, fixed before it starts.

Belongs here: `settings.RunSettings` (derived once per Agent from its AgentSettings), the
one retry layer (``retry``), the pre-flight input estimate (``input_estimate``), the prefix
audit (``prefix_audit``), and what a session fixes around its runs: the frozen tool surface
(``tool_surface``) and whether the system prompt is sent (``turn_system``). It is the
bottom of ``run/``: it imports no other sub-room. Does not: the loop (``loop``), the
outcome (``results``), reading the environment or validating settings (``config/``).
"""
