"""Extraction evals: datasets, the runner, reports (see doc_processing_toolkit.evals)."""
