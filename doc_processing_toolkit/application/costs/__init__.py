"""The costs room: DetailedCostReport and IterationMetrics built from the ledger.

Belongs here: reports over a run's cost records. Does not: pricing or the per-request
records themselves (pure, in ``domain/costs``).
"""
