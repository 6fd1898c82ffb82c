"""The in-memory fakes of the storage ports honour the port contracts."""

from __future__ import annotations

import hashlib

import pytest

from doc_processing_toolkit.ports.archive_sink import ArchiveSink
from doc_processing_toolkit.ports.media_store import MediaStore
from doc_processing_toolkit.testing import InMemoryArchiveSink, InMemoryMediaStore


def test_media_store_round_trips_and_dedupes_by_digest() -> None:
    store = InMemoryMediaStore()
    assert isinstance(store, MediaStore)
    data = b"\x89PNG fake"
    digest = hashlib.sha256(data).hexdigest()
    ref = store.put(digest, "image/png", data)
    assert ref == f"{digest}.png"
    assert store.put(digest, "image/png", data) == ref  # same digest: same reference
    assert store.get(ref) == data
    assert store.puts == [ref, ref] and list(store.blobs) == [ref]


def test_media_store_treats_refs_as_data_and_raises_on_a_miss() -> None:
    store = InMemoryMediaStore()
    with pytest.raises(ValueError, match="reference"):
        store.get("../../etc/passwd")
    with pytest.raises(KeyError):
        store.get("0" * 64 + ".png")
    with pytest.raises(ValueError, match="sha256"):
        store.put("not-a-digest", "image/png", b"x")
    assert store.put("a" * 64, "application/x-unknown-kind", b"x") == "a" * 64 + ".bin"


def test_archive_sink_keeps_copies_and_returns_locators() -> None:
    sink = InMemoryArchiveSink()
    assert isinstance(sink, ArchiveSink)
    payload = [{"role": "user", "content": "hi"}]
    assert sink(payload) == "memory://archive/1"
    payload[0]["content"] = "changed"
    assert sink([]) == "memory://archive/2"
    assert sink.archives == [[{"role": "user", "content": "hi"}], []]


def test_archive_sink_can_fail_on_purpose() -> None:
    sink = InMemoryArchiveSink(fail_with=OSError("bucket gone"))
    with pytest.raises(OSError, match="bucket gone"):
        sink([{"role": "user"}])
    assert sink.archives == []
