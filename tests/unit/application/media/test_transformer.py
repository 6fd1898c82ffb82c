"""MediaTransformer: the documented API, driven by the registry rows and profiles."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from doc_processing_toolkit.agent.media import MediaTransformer

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
PDF = b"%PDF-1.7\n%%EOF\n"
MP4 = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 16


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"png": tmp_path / "photo.png", "pdf": tmp_path / "doc.pdf", "mp4": tmp_path / "v.mp4"}
    out["png"].write_bytes(PNG)
    out["pdf"].write_bytes(PDF)
    out["mp4"].write_bytes(MP4)
    # Content decides, not the extension.
    (tmp_path / "mislabelled.txt").write_bytes(PNG)
    (tmp_path / "table.csv").write_text("a,b\n1,2\n")
    return out


def test_unknown_provider_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unsupported provider 'acme'"):
        MediaTransformer("acme")


def test_detect_and_encode(files: dict[str, Path], tmp_path: Path) -> None:
    t = MediaTransformer("anthropic")
    assert t.detect_media_type(files["png"]) == "image/png"
    assert t.detect_media_type(str(files["pdf"])) == "application/pdf"
    assert t.detect_media_type(files["mp4"]) == "video/mp4"
    assert t.detect_media_type(tmp_path / "mislabelled.txt") == "image/png"
    assert t.detect_media_type(tmp_path / "table.csv") == "text/csv"
    assert base64.b64decode(t.encode_base64(files["pdf"])) == PDF
    with pytest.raises(FileNotFoundError, match=r"nope\.png"):
        t.detect_media_type(tmp_path / "nope.png")


def test_supported_types_follow_the_rows_and_the_wire_format(files: dict[str, Path]) -> None:
    t = MediaTransformer("fireworks")
    assert t.get_supported_types() == [
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/heic",
        "image/heif",
    ]
    assert "video/mp4" in t.get_supported_types("google")
    assert "video/mp4" not in t.get_supported_types("anthropic")
    assert "application/pdf" in t.get_supported_types("openai")
    assert t.is_supported(files["png"]) and not t.is_supported(files["pdf"])
    assert t.is_supported(files["mp4"], provider="google")


def test_transform_renders_each_providers_wire_shape(files: dict[str, Path]) -> None:
    b64_png = base64.b64encode(PNG).decode()
    anthropic = MediaTransformer("anthropic").transform([files["png"], str(files["pdf"])])
    assert anthropic[0] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": b64_png},
    }
    assert anthropic[1]["type"] == "document" and anthropic[1]["title"] == "doc.pdf"
    openai = MediaTransformer("openai").transform([files["pdf"]])
    assert openai[0]["type"] == "input_file" and openai[0]["filename"] == "doc.pdf"
    google = MediaTransformer("google").transform([files["mp4"]])
    assert google[0]["inline_data"]["mime_type"] == "video/mp4"
    fireworks = MediaTransformer("fireworks").transform([PNG])
    assert fireworks == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64_png}"}}
    ]
    named = MediaTransformer("openai").transform(
        [PDF], media_type="application/pdf", filename="invoice.pdf"
    )
    assert named[0]["filename"] == "invoice.pdf"
    assert (
        MediaTransformer("google").transform_files([files["png"]], "ignored")[0]["inline_data"][
            "mime_type"
        ]
        == "image/png"
    )


def test_transform_refuses_what_the_provider_cannot_take(files: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="fireworks does not take application/pdf"):
        MediaTransformer("fireworks").transform([files["pdf"]])
    with pytest.raises(FileNotFoundError, match=r"missing\.pdf"):
        MediaTransformer("openai").transform(["missing.pdf"])


@pytest.mark.parametrize(
    ("value", "kwargs"),
    [
        (PDF, {"media_type": "application/pdf", "filename": "invoice.pdf"}),
        (PNG, {"media_type": "image/png", "filename": "invoice.pdf"}),
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            {"media_type": "video/mp4", "filename": "invoice.pdf"},
        ),
    ],
    ids=["pdf-bytes", "image-bytes", "youtube-url"],
)
def test_google_keeps_a_supplied_filename(value: object, kwargs: dict[str, str]) -> None:
    """agent-api.txt, MediaTransformer: "Google: Various formats including bytes for
    video/audio; filename preserved when supplied" — as display_name on the Blob/FileData,
    in a shape google-genai's own types accept."""
    from google.genai import types

    (item,) = MediaTransformer("google").transform([value], **kwargs)
    blob = item.get("inline_data") or item.get("file_data")
    assert blob["display_name"] == "invoice.pdf"
    part = types.Part.model_validate(item)
    wire = part.inline_data or part.file_data
    assert wire is not None and wire.display_name == "invoice.pdf"


def test_google_without_a_filename_adds_no_label() -> None:
    """A filename is kept "when supplied"; none is invented."""
    (item,) = MediaTransformer("google").transform([PDF], media_type="application/pdf")
    assert "display_name" not in item["inline_data"]
