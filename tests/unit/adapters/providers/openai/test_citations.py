"""OpenAI Responses annotations -> Citation."""

from __future__ import annotations

from doc_processing_toolkit.adapters.providers.openai.citations import map_annotations


def _message(*parts: tuple[str, list[dict[str, object]]]) -> dict[str, object]:
    content = [{"type": "output_text", "text": t, "annotations": a} for t, a in parts]
    return {"type": "message", "role": "assistant", "content": content}


def test_spans_are_located_in_the_joined_text() -> None:
    url = {"type": "url_citation", "start_index": 0, "end_index": 4, "url": "u", "title": "t"}
    odd = {"type": "file_path", "file_id": "f", "start_index": 1, "end_index": 2}
    output = [_message(("One. ", []), ("Two. Three.", [url, odd]))]
    web, unknown = map_annotations(output)
    assert (web.cited_text, web.char_start, web.char_end, web.kind) == ("Two.", 5, 9, "web")
    assert (unknown.kind, unknown.raw) == ("unknown", odd)


def test_file_citation_marks_the_sentence_before_its_index() -> None:
    note = {"type": "file_citation", "file_id": "file-1", "filename": "ai.pdf", "index": 24}
    text = "First point. Second one. More."
    (citation,) = map_annotations([_message((text, [note]))])
    assert citation.cited_text == "Second one."
    assert (citation.title, citation.kind) == ("ai.pdf", "file_search")
