"""The Anthropic stream assembler: text pieces joined once, a mid-stream read loses nothing."""

from __future__ import annotations


def test_anthropic_text_pieces_join_once_and_a_mid_stream_read_loses_nothing() -> None:
    from doc_processing_toolkit.adapters.providers.anthropic.stream import StreamAssembler

    assembler = StreamAssembler()
    assembler.feed({"type": "message_start", "message": {"model": "m", "usage": {}}})
    assembler.feed(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "A"}}
    )
    thinking = {"type": "thinking", "thinking": "", "signature": ""}
    assembler.feed({"type": "content_block_start", "index": 1, "content_block": thinking})
    words = [f"w{n} " for n in range(3000)]
    for n, word in enumerate(words):
        delta = {"type": "text_delta", "text": word}
        assembler.feed({"type": "content_block_delta", "index": 0, "delta": delta})
        think = {"type": "thinking_delta", "thinking": word}
        assembler.feed({"type": "content_block_delta", "index": 1, "delta": think})
        if n == 1000:  # a read mid-stream (a salvaged partial answer) sees everything so far
            assert assembler.content_blocks()[0]["text"] == "A" + "".join(words[:1001])
    sig = {"type": "signature_delta", "signature": "sig"}
    assembler.feed({"type": "content_block_delta", "index": 1, "delta": sig})
    blocks = assembler.content_blocks()
    assert blocks == assembler.content_blocks()  # reading twice adds nothing twice
    assert blocks[0]["text"] == "A" + "".join(words)
    assert blocks[1]["thinking"] == "".join(words) and blocks[1]["signature"] == "sig"
