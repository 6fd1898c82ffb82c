"""The output schema of the invoice evals (``output_schema: invoice_schema:Invoice``).

Matching rules ride on the schema: ``number`` must match exactly, ``notes`` is free text
compared fuzzily, ``line_items`` is scored as a set (precision, recall, F1); everything else
is compared normalised (case, whitespace, Unicode, numbers, dates).
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class LineItem(BaseModel):
    description: str
    amount: float


class Invoice(BaseModel):
    number: str = Field(json_schema_extra={"match": "exact"})
    date: str
    vendor: str
    total: float
    line_items: list[LineItem] = []
    notes: str | None = Field(None, json_schema_extra={"match": "fuzzy", "threshold": 85})
