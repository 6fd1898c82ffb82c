"""Pure tool rules: ToolSpec and tool_choice (``specs``), schemas from signatures (``schema``,
``type_schema``), the result cap and its marker (``results``), the truncated-result store
(``truncated``), tool spend reports (``reports``), the strict budgeter (``strict_budget``),
the neutral built-in tool setting (``built_in``) and the one ``allowed_tools`` rule
(``allowed``). No I/O and no provider names.
"""
