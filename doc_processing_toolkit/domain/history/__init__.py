"""Pure history rules: the ConversionReport and Salvage values (``report``), what the
crossing needs to know about a dialect (``rules``), the neutral crossing passes
(``crossing``) and the filter over them (``filtering``). No provider branches: what differs
per provider comes from its profile, as `rules.DialectRules`.
"""
