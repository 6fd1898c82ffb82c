"""Durable-execution engines behind ``ports/durable.py``: DBOS (``dbos.py``)."""
