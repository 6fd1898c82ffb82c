"""The Gemini stream assembler: text parts merged once, a mid-stream read loses nothing."""

from __future__ import annotations

from typing import Any


def test_gemini_text_parts_merge_once_and_a_mid_stream_read_loses_nothing() -> None:
    from doc_processing_toolkit.adapters.providers.google.stream import StreamAssembler

    assembler = StreamAssembler()
    words = [f"w{n} " for n in range(3000)]

    def chunk(text: str, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
        if finish:
            candidate["finish_reason"] = finish
        return {"candidates": [candidate]}

    for n, word in enumerate(words):
        assembler.feed(chunk(word))
        if n == 1000:
            parts = assembler.raw()["candidates"][0]["content"]["parts"]
            assert parts == [{"text": "".join(words[:1001])}]
    assembler.feed(chunk("end", "STOP"))
    parts = assembler.raw()["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "".join(words) + "end"}]
    assert assembler.message().text == "".join(words) + "end"
