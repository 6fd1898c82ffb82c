"""The run-time evidence step of ``run(..., output_schema=Model, evidence=True)``: the
run's settings ask for each leaf's quote and page (`grounded_settings`), and after the
run the answer is split into the plain output and its `Evidence`, every quote checked
against the text of the documents the run sent (`ground_result`). The rules themselves
are pure, in ``domain/grounding``. Not here: citations (the providers' own grounding)."""

from doc_processing_toolkit.application.grounding.step import (
    document_texts,
    ground_result,
    ground_run,
    grounded_settings,
)

__all__ = ["document_texts", "ground_result", "ground_run", "grounded_settings"]
