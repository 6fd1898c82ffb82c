"""Extraction evals, the pure part: field matching, per case results, aggregates."""
