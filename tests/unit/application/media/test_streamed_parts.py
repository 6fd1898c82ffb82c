"""Issue 32 item 7: a file that will be uploaded is left on disk (a path-backed part).

``files=`` paths over the row's inline limit (where the provider uploads) and every
``tool_files=`` path become `MediaPart`s carrying ``path`` and ``size`` instead of bytes;
the IR round trip keeps them; the Gemini inline threshold is the row's
``max_inline_bytes``; a restored session reads a streamed upload's file only while it is
unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from doc_processing_toolkit.adapters.providers._source import (
    part_bytes,
    part_sha256,
    with_bytes,
)
from doc_processing_toolkit.adapters.providers.google.files import (
    INLINE_LIMIT_BYTES,
    inline_limit,
)
from doc_processing_toolkit.adapters.registry.json_file import JsonFileRegistry
from doc_processing_toolkit.application.media.inputs import media_part, media_parts
from doc_processing_toolkit.application.media.limits import prompt_stream_over
from doc_processing_toolkit.application.media.source import KeptMedia
from doc_processing_toolkit.application.media.tool_files import check_tool_files
from doc_processing_toolkit.domain.messages import MESSAGES_ADAPTER, MediaPart, Message

MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"v" * 5_000


def _row(model: str):  # type: ignore[no-untyped-def]
    row = JsonFileRegistry().row(model)
    assert row is not None
    return row


def test_a_path_over_the_stream_size_is_not_read(tmp_path: Path) -> None:
    video = tmp_path / "clip.mp4"
    video.write_bytes(MP4)
    part = media_part(video, stream_over=1_000)
    assert part.data is None
    assert part.path == str(video.resolve()) and part.size == len(MP4)
    assert part.mime_type == "video/mp4" and part.filename == "clip.mp4"
    assert part_bytes(part) == MP4
    assert part_sha256(part) == hashlib.sha256(MP4).hexdigest()
    assert with_bytes(part) == MediaPart(mime_type="video/mp4", data=MP4, filename="clip.mp4")
    # Under the size, or with no stream size, the file is read as before.
    assert media_part(video, stream_over=len(MP4)).data == MP4
    assert media_part(video).data == MP4


def test_a_streamed_office_file_takes_its_type_from_the_name(tmp_path: Path) -> None:
    doc = tmp_path / "report.docx"
    with zipfile.ZipFile(doc, "w") as archive:
        archive.writestr("word/document.xml", "x" * 200_000)
    part = media_part(doc, stream_over=10)
    assert part.path is not None
    assert part.mime_type == (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )


def test_only_a_row_that_uploads_large_media_streams_prompt_files() -> None:
    flash = _row("gemini-2.5-flash")
    assert flash.max_inline_bytes is not None
    assert prompt_stream_over(flash) == flash.max_inline_bytes
    assert prompt_stream_over(_row("claude-sonnet-5")) is None
    assert prompt_stream_over(None) is None


def test_tool_files_paths_are_always_streamed(tmp_path: Path) -> None:
    data = tmp_path / "t.csv"
    data.write_text("a,b\n1,2\n")
    [part] = check_tool_files([data])
    assert part.data is None and part.path == str(data.resolve()) and part.size == 8
    [held] = check_tool_files([b"%PDF-1.4 x"])
    assert held.data == b"%PDF-1.4 x"


def test_media_parts_pass_the_stream_size_to_each_path(tmp_path: Path) -> None:
    small, big = tmp_path / "a.mp4", tmp_path / "b.mp4"
    small.write_bytes(MP4[:500])
    big.write_bytes(MP4)
    parts = media_parts([small, big], stream_over=1_000)
    assert [p.data is None for p in parts] == [False, True]


def test_a_path_backed_part_round_trips_through_the_ir_adapter(tmp_path: Path) -> None:
    part = MediaPart(mime_type="video/mp4", filename="c.mp4", path="/data/c.mp4", size=9)
    messages = [Message(role="user", parts=(part,))]
    dumped = MESSAGES_ADAPTER.dump_json(messages)
    assert MESSAGES_ADAPTER.validate_json(dumped) == messages
    old = MESSAGES_ADAPTER.validate_python(
        [{"role": "user", "parts": [{"kind": "media", "mime_type": "image/png"}]}]
    )
    assert old[0].parts[0] == MediaPart(mime_type="image/png")


def test_the_gemini_inline_limit_comes_from_the_row() -> None:
    flash = _row("gemini-2.5-flash")
    assert inline_limit(flash) == flash.max_inline_bytes
    assert inline_limit(flash.model_copy(update={"max_inline_bytes": 1_000})) == 1_000
    assert inline_limit(flash.model_copy(update={"max_inline_bytes": None})) == (INLINE_LIMIT_BYTES)
    assert inline_limit(None) == INLINE_LIMIT_BYTES


def test_kept_media_reads_a_streamed_upload_only_while_unchanged(tmp_path: Path) -> None:
    video = tmp_path / "clip.mp4"
    video.write_bytes(MP4)
    record = {
        "path": str(video),
        "size": len(MP4),
        "sha256": hashlib.sha256(MP4).hexdigest(),
        "mime_type": "video/mp4",
    }
    kept = KeptMedia({"uri-a": ("image/png", "AAAA")}, {"uri-b": record})
    assert kept.get("uri-a") == ("image/png", "AAAA")
    assert kept.get("uri-b") == ("video/mp4", base64.b64encode(MP4).decode("ascii"))
    assert kept.get("uri-c") is None
    video.write_bytes(MP4[:-1] + b"x")  # same size, other bytes
    assert kept.get("uri-b", "none") == "none"
    video.unlink()
    assert kept.get("uri-b") is None
    with pytest.raises(KeyError):
        kept["uri-b"]


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.mark.parametrize("codec_name", ["anthropic", "openai", "fireworks", "google"])
def test_a_codec_sends_a_path_backed_part_inline_from_its_file(
    tmp_path: Path, codec_name: str
) -> None:
    """A path-backed part that was not uploaded (e.g. a history moved to another provider)
    is read where the wire format carries bytes, as if it had held them."""
    from doc_processing_toolkit.adapters.providers.anthropic.dialect import (
        AnthropicHistoryCodec,
    )
    from doc_processing_toolkit.adapters.providers.fireworks.dialect import (
        FireworksHistoryCodec,
    )
    from doc_processing_toolkit.adapters.providers.google.dialect import GoogleHistoryCodec
    from doc_processing_toolkit.adapters.providers.openai.dialect import OpenAIHistoryCodec

    codec = {
        "anthropic": AnthropicHistoryCodec,
        "openai": OpenAIHistoryCodec,
        "fireworks": FireworksHistoryCodec,
        "google": GoogleHistoryCodec,
    }[codec_name]()
    image = tmp_path / "dot.png"
    image.write_bytes(PNG)
    held = MediaPart(mime_type="image/png", data=PNG, filename="dot.png")
    on_disk = MediaPart(mime_type="image/png", filename="dot.png", path=str(image), size=72)

    def render(part: MediaPart) -> object:
        return codec.render([Message(role="user", parts=(part,))])

    assert render(on_disk) == render(held)
