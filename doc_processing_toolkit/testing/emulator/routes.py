"""The emulator's routes: one explicit table, path -> `DialectRoute`.

Every wire dialect the emulator speaks is listed here; nothing registers itself on import.
A new dialect adds its routes to `DIALECT_ROUTES` (or a test passes ``routes=`` to one
`ProviderEmulator`).
"""

from __future__ import annotations

from collections.abc import Mapping

from doc_processing_toolkit.testing.emulator.anthropic_batch_wire import ANTHROPIC_BATCH_ROUTES
from doc_processing_toolkit.testing.emulator.anthropic_wire import ANTHROPIC_ROUTES
from doc_processing_toolkit.testing.emulator.chat_completions_wire import CHAT_COMPLETIONS_ROUTES
from doc_processing_toolkit.testing.emulator.common import DialectRoute
from doc_processing_toolkit.testing.emulator.deployments_wire import DEPLOYMENT_ROUTES
from doc_processing_toolkit.testing.emulator.files_wire import FILES_ROUTES
from doc_processing_toolkit.testing.emulator.google_batch_wire import GOOGLE_BATCH_ROUTES
from doc_processing_toolkit.testing.emulator.google_files_wire import GOOGLE_FILES_ROUTES
from doc_processing_toolkit.testing.emulator.google_wire import GOOGLE_ROUTES
from doc_processing_toolkit.testing.emulator.openai_batch_wire import OPENAI_BATCH_ROUTES
from doc_processing_toolkit.testing.emulator.openai_wire import OPENAI_ROUTES
from doc_processing_toolkit.testing.emulator.skills_wire import SKILLS_ROUTES

__all__ = ["DIALECT_ROUTES", "register_dialect_routes"]

DIALECT_ROUTES: dict[str, DialectRoute] = {
    **ANTHROPIC_ROUTES,  # /v1/messages
    **OPENAI_ROUTES,  # /v1/responses
    **CHAT_COMPLETIONS_ROUTES,  # chat completions (Fireworks)
    **GOOGLE_ROUTES,  # /v1(beta)/models/{model}:streamGenerateContent, ...
    **GOOGLE_FILES_ROUTES,  # /upload/v1(beta)/files
    **SKILLS_ROUTES,  # /v1/skills (Anthropic custom skills)
    **FILES_ROUTES,  # /v1/files (Anthropic, OpenAI), /{version}/files/{id} (+ Gemini), ...
    **ANTHROPIC_BATCH_ROUTES,  # /v1/messages/batches (Message Batches)
    **OPENAI_BATCH_ROUTES,  # /v1/batches (Batch API; its GET shares Gemini's path)
    **GOOGLE_BATCH_ROUTES,  # :batchGenerateContent, /{version}/batches/{id} (+ OpenAI's GET)
    **DEPLOYMENT_ROUTES,  # Bedrock, Vertex AI, Microsoft Foundry, Azure OpenAI
}
"""Every route the emulator serves by default."""


def register_dialect_routes(routes: Mapping[str, DialectRoute]) -> None:
    """Add routes to `DIALECT_ROUTES` (emulators created afterwards serve them)."""
    DIALECT_ROUTES.update(routes)
