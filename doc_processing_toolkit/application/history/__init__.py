"""The history room: cross-provider conversion orchestration and turn bookkeeping.

Belongs here: reading a stored history with a codec, crossing it through the neutral IR,
writing it back, and reporting what was dropped; codecs and profiles are handed in
(``dialects.Dialects``), never looked up. Does not: the crossing rules themselves (pure, in
``domain/history``), a provider's salvage or media rules (its adapter's profile), or the
container (``agent.history_conversion`` binds it).
"""
