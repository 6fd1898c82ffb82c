"""Pure history rules: run boundaries, filtering and the ConversionReport (``filtering``), and
the neutral crossing passes (``crossing``). No provider branches: what differs per provider
comes from its profile.
"""
