"""The results sub-room: a run's raw state and what it is turned into.

Belongs here: `outcome.RunOutcome` (the loop's live state, readable after a cancel), the
AgentResult built from it (``result_builder``), its DetailedCostReport (``cost_report``)
and the cost record of the request a run failed on (``failed_request``). It imports
``policy`` only (the input estimate a failed request is priced with). Does not: deciding
anything during the run (``loop``), the values a report is made of (``application/costs``).
"""
