"""Pure tool rules: ToolSpec and tool_choice (``specs``), schemas from signatures (``schema``,
``type_schema``), the result cap and its marker (``results``), the truncated-result store
(``truncated``), tool spend reports (``reports``) and the strict budgeter (``strict_budget``).
No I/O and no provider names.
"""
