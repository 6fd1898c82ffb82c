"""The loop sub-room: THE tool loop and what it decides on each request and response.

Belongs here: `loop.RunLoop` (iterations, tool rounds, the stop rules), the loop's hook
points as Protocols (``callbacks``), the one event channel (``events``), what each request
carries for thinking binding and the one re-send (``binding``), what the loop decides about
a response (``responses``) and the structured output's schema (``schemas``). It imports
``results`` (the outcome it fills) and ``policy`` (the settings it reads), never
``stream``. Does not: how a run reaches its caller (``stream``), turning the outcome into
an AgentResult (``results``), the settings and the rules they configure (``policy``).
"""
