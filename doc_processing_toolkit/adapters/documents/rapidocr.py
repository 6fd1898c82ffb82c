"""RapidOcrEngine: the `OcrEngine` port on RapidOCR with onnxruntime (the ``ocr`` extra).

Nothing is downloaded at run time. The ``rapidocr`` wheel (3.x) ships its default models
(PP-OCRv6 small detection and recognition, the mobile direction classifier, about 30 MB)
inside the package; RapidOCR would fetch a model only when none is given and the one it
looks for is absent or fails its checksum. This adapter always hands RapidOCR the three
shipped files by path, which skips that code entirely, and refuses to start (naming the
missing file) when a file is not there. (``rapidocr-onnxruntime`` 1.4.4 also ships its
models but stops at Python 3.12 and needs the GUI build of OpenCV; ``rapidocr`` 3.x runs on
every Python the toolkit supports with the headless OpenCV.)

The recognition models read Latin script and Chinese; the engine is made on the first
``read`` (loading the models takes a few seconds) and reused, one read at a time. Text is
found on the image scaled to 960 px on its long side and read from the full-resolution
crops (about 2 s for a sparse page on one core, 10 s for a full page).
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import DocumentError, MissingDependencyError

__all__ = ["OCR_EXTRA_HINT", "RapidOcrEngine", "ocr_available", "shipped_models"]

OCR_EXTRA_HINT = "pip install 'doc-processing-toolkit[ocr]'"
"""How to install what OCR needs."""

_MODELS = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/bmp", "image/tiff", "image/webp"})


def ocr_available() -> bool:
    """Whether the ``ocr`` extra (rapidocr and onnxruntime) is installed."""
    return all(importlib.util.find_spec(m) is not None for m in ("rapidocr", "onnxruntime"))


def _import_rapidocr() -> Any:
    try:
        import onnxruntime  # noqa: F401  (the engine RapidOCR runs on)
        import rapidocr
    except ImportError as exc:
        raise MissingDependencyError(
            f"reading scanned pages needs RapidOCR on onnxruntime, the ocr extra: {OCR_EXTRA_HINT}"
        ) from exc
    return rapidocr


def shipped_models() -> dict[str, Path]:
    """The model files the installed ``rapidocr`` package ships, by RapidOCR stage
    (``Det``, ``Rec``, ``Cls``). Raises `MissingDependencyError` when the extra is not
    installed or a file is missing (nothing is ever downloaded in its place)."""
    rapidocr = _import_rapidocr()
    folder = Path(rapidocr.__file__).resolve().parent / "models"
    models = {stage: folder / file for stage, file in _MODELS.items()}
    missing = [str(path) for path in models.values() if not path.is_file()]
    if missing:
        raise MissingDependencyError(
            f"the installed rapidocr ships no model at {', '.join(missing)}; the toolkit never "
            f"downloads models: reinstall the ocr extra ({OCR_EXTRA_HINT}) with rapidocr 3.x"
        )
    return models


class RapidOcrEngine:
    """Reads the text of a page image with RapidOCR (the `OcrEngine` port).

    Args:
        text_score: The lowest recognition confidence (0..1) a line needs to be kept.
    """

    name = "rapidocr"

    def __init__(self, *, text_score: float = 0.5) -> None:
        self.text_score = text_score
        self._engine: Any = None
        self._lock = threading.Lock()

    def read(self, image: bytes, mime_type: str, name: str) -> str:
        """The text in ``image``, one recognised line per line, top to bottom; ``""`` when
        the image shows no text. Raises `DocumentError` naming ``name`` when the image
        cannot be read."""
        mime = mime_type.split(";", 1)[0].strip().lower()
        if mime not in _IMAGE_TYPES:
            raise DocumentError(
                f"{name}: {self.name} reads images ({', '.join(sorted(_IMAGE_TYPES))}), "
                f"not {mime_type!r}",
                document=name,
            )
        if not image:
            raise DocumentError(f"{name}: the image is empty (0 bytes)", document=name)
        with self._lock:
            engine = self._engine if self._engine is not None else self._start(name)
            try:
                result = engine(image)
            except Exception as exc:
                raise DocumentError(
                    f"{name}: {self.name} could not read the image: "
                    f"{type(exc).__name__}: {str(exc).strip()[:300]}",
                    document=name,
                ) from exc
        lines = getattr(result, "txts", None) or ()
        return "\n".join(str(line) for line in lines if str(line).strip())

    def _start(self, name: str) -> Any:
        rapidocr = _import_rapidocr()
        params: dict[str, Any] = {
            f"{stage}.model_path": str(path) for stage, path in shipped_models().items()
        }
        # Text detection on the page scaled to 960 px on its long side (PaddleOCR's
        # document default). The shipped config keeps the image at full size (at least
        # 736 px on the short side), on which the detector misses a short line on a whole
        # page rendered at 150 dpi; recognition still reads the full-resolution crops.
        params["Det.limit_type"] = "max"
        params["Det.limit_side_len"] = 960
        params["Global.log_level"] = "warning"
        params["Global.text_score"] = self.text_score
        try:
            self._engine = rapidocr.RapidOCR(params=params)
        except Exception as exc:
            raise DocumentError(
                f"{name}: {self.name} could not start: {type(exc).__name__}: "
                f"{str(exc).strip()[:300]}",
                document=name,
            ) from exc
        return self._engine
