"""The costs room: DetailedCostReport and IterationMetrics, the values a run's costs are
reported in; the unpriced-model warning; the structured-output marking of records.

Belongs here: cost values and rules over records that know nothing of a run. Does not:
pricing or the per-request records themselves (pure, in ``domain/costs``); building a
run's report from its outcome and result (``run/cost_report``, ``run/failed_request``:
they read the run, which sits above this room).
"""
