"""Pure cost rules: pricing from registry rows (``pricing``), per-request cost records and the
ledger (``ledger``), retry accounting (``retry``). No I/O and no provider names.
"""
