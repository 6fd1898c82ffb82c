"""A structured answer settled: accepted, or sent back with its errors and asked again.

When the model's structured answer fails validation against ``output_schema`` (or, with
``evidence=True``, a value does not occur in its own quote), the loop sends the errors
back, each a field path and a message (never an exception's repr), and asks again, up
to ``output_retries`` times in the same run; the next request's purpose is
``"output_retry"`` (its own cost record). After the last failure `StructuredOutputError`
is raised with every attempt's errors in ``attempts``; an evidence mismatch that
outlives the re-asks is kept (its fields end unverified, not as an error).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from doc_processing_toolkit.application.run.loop.responses import validate_structured
from doc_processing_toolkit.application.run.loop.schemas import read_only_output_schema
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.results.outcome import RunOutcome
from doc_processing_toolkit.domain.citations import strip_citation_markers
from doc_processing_toolkit.domain.errors import StructuredOutputError
from doc_processing_toolkit.domain.grounding.evidence import evidence_of
from doc_processing_toolkit.domain.grounding.matching import value_errors
from doc_processing_toolkit.domain.messages import (
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    user_text,
)
from doc_processing_toolkit.domain.requests import ModelResponse

__all__ = ["OUTPUT_RETRY_PURPOSE", "StructuredAnswer", "feedback_text"]

OUTPUT_RETRY_PURPOSE = "output_retry"
"""The purpose of a re-ask request (its cost record, ``request_start``)."""

_NOT_RUN = "Not executed: the final answer failed validation; answer again."


def _errors_of(exc: StructuredOutputError) -> list[dict[str, str]]:
    cause = exc.__cause__
    if isinstance(cause, ValidationError):
        return [
            {"path": ".".join(str(p) for p in e["loc"]) or "(root)", "message": str(e["msg"])}
            for e in cause.errors(include_url=False)
        ]
    return [{"path": "(root)", "message": str(exc)}]


def feedback_text(errors: list[dict[str, str]]) -> str:
    """What a re-ask tells the model: each error's field path and message."""
    lines = "\n".join(f"- {e['path']}: {e['message']}" for e in errors)
    return (
        "Your answer did not match the required output schema:\n"
        f"{lines}\nAnswer again with the complete corrected answer."
    )


class StructuredAnswer:
    """One run's final answers: each settled (accepted, or re-asked within budget)."""

    def __init__(self, settings: RunSettings) -> None:
        self._settings = settings
        self.attempts: list[list[dict[str, str]]] = []
        """Every rejected answer's errors, in order."""

    def settle(
        self,
        outcome: RunOutcome,
        response: ModelResponse,
        final_call: ToolCallPart | None,
        structured: bool,
        iteration: int,
    ) -> bool:
        """True: ``outcome.output`` is set (the run ends). False: the errors went back
        into ``outcome.messages``, ask again (purpose ``"output_retry"``). A re-ask needs
        an iteration left under ``max_iterations`` (``iteration`` is the current one).

        Raises:
            StructuredOutputError: the answer failed and no re-ask is left (``attempts``).
        """
        s = self._settings
        failure: StructuredOutputError | None = None
        try:
            if final_call is not None:
                output = validate_structured(s.output_schema, final_call.arguments)
            else:
                output = self._final_output(response, structured)
            model = evidence_of(s.output_schema)
            errors = value_errors(read_only_output_schema(model), output) if model else []
        except StructuredOutputError as exc:
            failure, errors = exc, _errors_of(exc)
        if not errors:
            outcome.output = output
            return True
        self.attempts.append(errors)
        if len(self.attempts) > s.output_retries or iteration >= s.max_iterations:
            if failure is None:  # only evidence mismatches: kept, unverified later
                outcome.output = output
                return True
            failure.attempts = list(self.attempts)
            raise failure
        self._send_back(outcome, response, final_call, feedback_text(errors))
        return False

    def _send_back(
        self,
        outcome: RunOutcome,
        response: ModelResponse,
        final_call: ToolCallPart | None,
        text: str,
    ) -> None:
        calls = response.message.tool_calls
        if final_call is None or not calls:
            outcome.messages.append(user_text(text))
            return
        results = [
            ToolResultPart(
                call.id,
                call.name,
                (TextPart(text if call is final_call else _NOT_RUN),),
                True,
            )
            for call in calls
        ]
        outcome.messages.append(Message("tool", tuple(results)))

    def _final_output(self, response: ModelResponse, structured: bool) -> Any:
        """A text answer: the structured result (JSON, validated) when the run has a
        schema, else the text (citation markers removed when asked)."""
        text = response.message.text
        if structured:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise StructuredOutputError(
                    f"structured output is not valid JSON: {exc.msg} at position {exc.pos}"
                ) from exc
            return validate_structured(self._settings.output_schema, data)
        return strip_citation_markers(text) if self._settings.remove_citations else text
