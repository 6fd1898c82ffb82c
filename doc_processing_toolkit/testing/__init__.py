"""Test support for users and for us: FakeModel, ProviderEmulator, scripted steps, and
in-memory fakes of ports (InMemoryMediaStore, InMemoryArchiveSink, InMemoryBatchClient)."""

from doc_processing_toolkit.testing.fake_model import FakeModel
from doc_processing_toolkit.testing.fakes import (
    InMemoryArchiveSink,
    InMemoryBatchClient,
    InMemoryMediaStore,
)
from doc_processing_toolkit.testing.registry import StaticRegistry
from doc_processing_toolkit.testing.script import (
    Fault,
    Reply,
    ScriptStep,
    ThinkingBlock,
    ToolCall,
    reply,
    tool_call,
)

__all__ = [
    "FakeModel",
    "Fault",
    "InMemoryArchiveSink",
    "InMemoryBatchClient",
    "InMemoryMediaStore",
    "ProviderEmulator",
    "Reply",
    "ScriptStep",
    "StaticRegistry",
    "ThinkingBlock",
    "ToolCall",
    "reply",
    "tool_call",
]


def __getattr__(name: str) -> object:
    # The emulator pulls in starlette/uvicorn: load it only when asked for.
    if name == "ProviderEmulator":
        from doc_processing_toolkit.testing.emulator import ProviderEmulator

        return ProviderEmulator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
