"""The fleet room: many Agent runs as durable jobs on a queue (issue 16).

Belongs here: the Fleet facade, the job runner (an Agent run whose model requests and
tool calls are durable steps), the job's model client (rate permits, 429 absorption),
and batch rounds over the BatchClient port. Does not: the engine itself (``ports/durable``
+ ``adapters/durable``), provider batch APIs (``adapters/providers/*/batch``), the run
loop (``run/``; the fleet reaches it only through ``application/step_scope``).
"""
