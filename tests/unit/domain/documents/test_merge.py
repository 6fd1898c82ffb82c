"""Merge rules: lists concatenated in page order without duplicates, scalars first
non-empty in page order, disagreements listed with both values and their original pages,
provenance from field path to original pages."""

from __future__ import annotations

from doc_processing_toolkit.domain.documents import ChunkOutput, merge_chunk_outputs

A = tuple(range(1, 101))
B = tuple(range(101, 201))
C = tuple(range(201, 301))


def test_lists_concatenate_in_page_order_without_duplicates() -> None:
    merged = merge_chunk_outputs(
        [
            ChunkOutput(A, {"parties": ["Acme", "Beta"]}),
            ChunkOutput(B, {"parties": ["Beta", "Gamma"]}),
            ChunkOutput(C, {"parties": []}),
        ]
    )
    assert merged.output == {"parties": ["Acme", "Beta", "Gamma"]}
    assert merged.provenance["parties"] == A + B
    assert merged.provenance["parties[2]"] == B
    assert merged.conflicts == ()


def test_a_scalar_takes_the_first_non_empty_value_and_a_disagreement_is_a_conflict() -> None:
    merged = merge_chunk_outputs(
        [
            ChunkOutput(A, {"title": "", "governing_law": "Delaware"}),
            ChunkOutput(B, {"title": "Master Agreement", "governing_law": "Delaware"}),
            ChunkOutput(C, {"title": None, "governing_law": "New York"}),
        ]
    )
    assert merged.output == {"title": "Master Agreement", "governing_law": "Delaware"}
    assert merged.provenance["title"] == B
    assert merged.provenance["governing_law"] == A + B
    (conflict,) = merged.conflicts
    assert conflict.path == "governing_law" and conflict.kept == "Delaware"
    assert [(v.value, v.pages[0], v.pages[-1]) for v in conflict.values] == [
        ("Delaware", 1, 200),
        ("New York", 201, 300),
    ]


def test_objects_merge_field_by_field_with_dotted_paths() -> None:
    merged = merge_chunk_outputs(
        [
            ChunkOutput((1, 2), {"terms": {"fee": 10, "clauses": ["a"]}}),
            ChunkOutput((3, 4), {"terms": {"fee": 12, "clauses": ["b"], "term": "2y"}}),
        ]
    )
    assert merged.output == {"terms": {"fee": 10, "clauses": ["a", "b"], "term": "2y"}}
    assert merged.provenance["terms.term"] == (3, 4)
    assert [c.path for c in merged.conflicts] == ["terms.fee"]


def test_equal_dict_items_are_one_item_and_all_empty_keeps_the_empty_value() -> None:
    merged = merge_chunk_outputs(
        [
            ChunkOutput((1,), {"items": [{"n": 1, "s": "x"}], "note": None}),
            ChunkOutput((2,), {"items": [{"s": "x", "n": 1}], "note": None}),
        ]
    )
    assert merged.output == {"items": [{"n": 1, "s": "x"}], "note": None}
    assert "note" not in merged.provenance


def test_no_chunks_merge_to_an_empty_output() -> None:
    assert merge_chunk_outputs([]).output == {}
