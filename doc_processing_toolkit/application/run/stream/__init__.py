"""The stream sub-room: how a run reaches its caller while it goes.

Belongs here: the plumbing of ``Agent.stream()`` and of the blocking entry points
(``streaming``: a run's events through a queue, cancellation, ``run_blocking``) and the
off-loop provider calls of a streamed run (``offloop``: the stream worker's thread and
loop). It is the top of ``run/``: it drives ``loop`` and reads ``results``. Does not: the
loop itself or its event channel (``loop``), the result (``results``).
"""
