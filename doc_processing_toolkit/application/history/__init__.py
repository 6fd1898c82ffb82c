"""The history room: cross-provider conversion orchestration and turn bookkeeping.

Belongs here: reading a stored history with a codec, crossing it through the neutral IR,
writing it back, and reporting what was dropped. Does not: the crossing rules themselves
(pure, in ``domain/history``) or a provider's salvage rules (its adapter's profile).
"""
