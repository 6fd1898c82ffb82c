"""The Agent's settings room: AgentSettings (the one typed source of an Agent's settings),
argument validation, the to_config() export, per-agent logging set-up, and (later) the YAML
loader AgentConfig builds on.

Belongs here: turning constructor arguments or a config file into settings and back.
Does not: anything that runs a request (``run/``), wires adapters (``container.py``) or
knows a provider's wire format (the provider profiles in ``adapters/providers/``).
"""
