"""Gemini grounding / citation metadata -> Citation (the SDK's snake_case JSON form)."""

from __future__ import annotations

from doc_processing_toolkit.adapters.providers.google.citations import map_grounding

TEXT = "Prices rose. Café sales fell."


def _support(start: int, end: int, text: str, chunks: list[int]) -> dict[str, object]:
    return {
        "segment": {"start_index": start, "end_index": end, "text": text},
        "grounding_chunk_indices": chunks,
    }


def test_byte_indices_become_character_spans_in_answer_order() -> None:
    second = "Café sales fell."
    start = len(TEXT.encode()) - len(second.encode())
    metadata = {
        "grounding_chunks": [
            {"web": {"uri": "https://a.example", "title": "a"}},
            {"retrieved_context": {"uri": "gs://b", "title": "b", "text": "quoted"}},
        ],
        "grounding_supports": [
            _support(start, len(TEXT.encode()), second, [1]),
            _support(0, 12, "Prices rose.", [0]),
        ],
    }
    found = map_grounding(TEXT, [metadata], None)
    assert [(c.cited_text, c.url, c.quote) for c in found] == [
        ("Prices rose.", "https://a.example", None),
        (second, "gs://b", "quoted"),
    ]
    assert TEXT[found[1].char_start : found[1].char_end] == second
    assert found[0].raw["grounding_chunk"] == metadata["grounding_chunks"][0]


def test_a_support_naming_a_missing_chunk_is_kept_as_unknown() -> None:
    metadata = {
        "grounding_chunks": [],
        "grounding_supports": [_support(0, 12, "Prices rose.", [4])],
    }
    (citation,) = map_grounding(TEXT, [metadata], None)
    assert (citation.kind, citation.cited_text) == ("unknown", "Prices rose.")


def test_repeated_grounding_over_chunks_is_kept_once_and_recitations_are_mapped() -> None:
    metadata = {
        "grounding_chunks": [{"web": {"uri": "https://a.example", "title": "a"}}],
        "grounding_supports": [_support(0, 12, "Prices rose.", [0])],
    }
    recited = {"citations": [{"start_index": 0, "end_index": 6, "uri": "https://r.example"}]}
    found = map_grounding(TEXT, [metadata, metadata], recited)
    assert [(c.cited_text, c.url) for c in found] == [
        ("Prices rose.", "https://a.example"),
        ("Prices", "https://r.example"),
    ]
