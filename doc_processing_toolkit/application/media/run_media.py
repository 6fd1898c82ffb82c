"""One run's code-execution media: ``tool_files``, a container to reuse, per-part
resolutions, and the files code execution wrote.

`RunMedia` is what the Agent holds for one run: built (and every input checked)
before anything is sent, it uploads the tool files and gives the user turn
(`RunMedia.user_turn`), the run-settings overrides (`RunMedia.overrides`:
code execution switched on when tool files or a container need it), and after the loop
writes the output files onto the result (`RunMedia.finish`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from doc_processing_toolkit.application.media.limits import upload_file_limit
from doc_processing_toolkit.application.media.outputs import download_output_files
from doc_processing_toolkit.application.media.tool_files import (
    ToolFiles,
    check_tool_files,
    container_to_reuse,
    upload_tool_files,
    with_code_execution,
)
from doc_processing_toolkit.application.result import AgentResult
from doc_processing_toolkit.domain.errors import CompatibilityError
from doc_processing_toolkit.domain.messages import MediaPart, Message
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = ["RunMedia"]


@dataclass
class RunMedia:
    """See the module docstring."""

    client: object
    provider: str
    logger: logging.Logger
    tool_parts: list[MediaPart] = field(default_factory=list)
    container_id: str | None = None
    media_resolutions: tuple[str | None, ...] = ()
    uploaded: ToolFiles = field(default_factory=ToolFiles)

    @classmethod
    def check(
        cls,
        client: object,
        *,
        provider: str,
        logger: logging.Logger,
        tool_files: Sequence[Any] | None,
        container_id: str | None,
        media_resolutions: Sequence[str | None] | None,
        row: ModelInfo | None = None,
    ) -> RunMedia:
        """The run's media, every input checked (nothing sent yet).

        Raises:
            FileNotFoundError, ValueError, TypeError: a bad ``tool_files`` entry or
                container id, naming it.
            CompatibilityError: ``tool_files`` on a deployment without a Files API.
        """
        if tool_files and row is not None and row.lacks("files_api"):
            raise CompatibilityError(
                f"tool_files are uploaded through the Files API, which {row.model} on "
                f"{row.deployment} does not have (its registry entry): use the provider's API"
            )
        return cls(
            client=client,
            provider=provider,
            logger=logger,
            tool_parts=check_tool_files(tool_files, upload_file_limit(row, provider)),
            container_id=container_to_reuse(client, container_id, provider=provider, logger=logger),
            media_resolutions=tuple(media_resolutions or ()),
        )

    async def user_turn(self, message: Message) -> Message:
        """Upload the tool files; ``message`` with their prompt parts first."""
        if not self.tool_parts:
            return message
        self.uploaded = await upload_tool_files(
            self.client, self.tool_parts, provider=self.provider, logger=self.logger
        )
        if not self.uploaded.prompt_parts:
            return message
        return Message("user", (*self.uploaded.prompt_parts, *message.parts))

    @property
    def code_execution(self) -> bool:
        """Whether this run switches code execution on."""
        return bool(self.uploaded.uploads) or self.container_id is not None

    def overrides(self, built_in_tools: Mapping[str, Any] | None) -> dict[str, Any]:
        """RunSettings fields to replace for this run."""
        out: dict[str, Any] = {}
        if self.media_resolutions:
            out["media_resolutions"] = self.media_resolutions
        if self.code_execution:
            out["built_in_tools"] = with_code_execution(built_in_tools, self.container_id)
            out["code_execution_file_ids"] = tuple(self.uploaded.file_ids)
        return out

    async def finish(
        self, result: AgentResult, metadata: Mapping[str, Any], output_dir: str | None
    ) -> None:
        """Download what code execution wrote onto ``result`` (and name the tool)."""
        if self.code_execution and "code_execution" not in result.built_in_tools_used:
            result.built_in_tools_used.append("code_execution")
        refs = metadata.get("code_execution_files")
        if not refs:  # code execution wrote nothing (or did not run)
            return
        written = await download_output_files(
            self.client,
            refs,
            provider=self.provider,
            output_dir=output_dir,
            logger=self.logger,
        )
        result.files_created = [*result.files_created, *written.files_created]
        result.downloaded_files = written.downloaded_files
