"""A request is re-bound (copied) only when a binding choice moved since it was built."""

from __future__ import annotations

import dataclasses

from doc_processing_toolkit.application.run.loop.binding import prepare_request, request_fields
from doc_processing_toolkit.application.run.policy.settings import RunSettings
from doc_processing_toolkit.application.run.results import outcome
from doc_processing_toolkit.domain.costs.ledger import Ledger, RetryAccumulator
from doc_processing_toolkit.domain.requests import ModelRequest

MODEL = "claude-sonnet-5-5"


def test_a_request_is_copied_only_when_a_binding_choice_moved_since_it_was_built() -> None:
    settings = RunSettings(model=MODEL, provider="anthropic", row=None)
    state = outcome.RunOutcome(
        messages=[], new_messages_start=0, ledger=Ledger(), accumulator=RetryAccumulator()
    )
    request = ModelRequest(model=MODEL, messages=())
    assert prepare_request(request, settings, state, None) is request  # nothing bound
    bound = dataclasses.replace(settings, bound_reasoning=True, block_binding="drop_block")
    built = ModelRequest(model=MODEL, messages=(), **request_fields(bound, state))
    assert built.block_binding == "drop_block" and not built.rebind
    assert prepare_request(built, bound, state, None) is built  # as the loop built it
    state.prefix_binding_retry = True  # a prefix-binding 400 was re-sent meanwhile
    moved = prepare_request(built, bound, state, None)
    assert moved is not built and moved.rebind and moved.block_binding == "drop_block"
