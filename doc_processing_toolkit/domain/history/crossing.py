"""The two passes of a cross-provider conversion (`domain.history.filter_history`).

Pass 1 drops, per part, what the target cannot take (recording each drop); pass 2 pairs
every tool call with its result, re-keys ids to the target's convention and refuses a
history that cannot be paired. What differs per dialect comes in as
`DialectRules`. Internal: use
`doc_processing_toolkit.domain.history.filtering.cross_provider`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, assert_never

from doc_processing_toolkit.domain.errors import SessionCompatibilityError
from doc_processing_toolkit.domain.grounding.citations import Citation, citations_as_text
from doc_processing_toolkit.domain.history.report import ConversionReport, Locator
from doc_processing_toolkit.domain.history.rules import DialectRules, reasoning_drop
from doc_processing_toolkit.domain.media import (
    NEUTRAL,
    Position,
    media_drop_reason,
    placeholder,
    with_sniffed_type,
)
from doc_processing_toolkit.domain.messages import (
    ContentPart,
    MediaPart,
    Message,
    Part,
    ProviderPart,
    ReasoningPart,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["Conversion"]

_ID_BODY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(slots=True)
class _Open:
    """A tool call waiting for its result."""

    id: str
    new_id: str
    name: str
    index: int


@dataclass(slots=True)
class Conversion:
    """One conversion's state: the dialects and their rules, what is still open, the ids
    in use. The source's rules read its payloads and reasoning; the target's decide ids
    and media."""

    source: str
    target: str
    input_types: Sequence[str] | None
    model: str | None
    locate: Locator | None
    source_rules: DialectRules
    target_rules: DialectRules
    report: ConversionReport
    open: list[_Open] = dataclasses.field(default_factory=list)
    used: set[str] = dataclasses.field(default_factory=set)
    cited: list[Citation] = dataclasses.field(default_factory=list)
    """The citations of the message being crossed (they cross as text at its end)."""

    def where(self, message: int, part: int) -> int:
        return self.locate(message, part) if self.locate is not None else message

    # -- pass 1: drop what cannot cross -------------------------------------------------

    def parts(self, index: int, message: Message) -> list[tuple[int, Part]]:
        out: list[tuple[int, Part]] = []
        self.cited = []
        for position, part in enumerate(message.parts):
            kept = self.part(index, position, part, message.role, salvaged=False)
            out.extend((position, item) for item in kept)
        if self.cited and out:  # the structured form stays in the source (the envelope)
            position = out[-1][0]
            sources = citations_as_text(self.cited)
            count = len(self.cited)
            fate = "kept as text" if sources else "dropped (they name no source)"
            detail = f"{count} citation{'s' if count != 1 else ''} on the text, {fate}"
            artefact = self.source_rules.payload_artefact
            where = self.where(index, position)
            self.report.dropped(where, artefact, detail, as_text=bool(sources))
            if sources:
                out.append((position, TextPart("\n\n" + sources)))
        return out

    def part(
        self, index: int, position: int, part: Part, role: Role, *, salvaged: bool
    ) -> list[Part]:
        match part:
            case TextPart():
                return [self.text_details(index, position, part)]
            case MediaPart():
                where: Position = "assistant" if role == "assistant" else "user"
                return [self.media(index, position, part, where)]
            case ToolCallPart():
                return [self.call_details(index, position, part)]
            case ToolResultPart():
                content = tuple(
                    self.media(index, position, item, "tool_result")
                    if isinstance(item, MediaPart)
                    else item
                    for item in part.content
                )
                return [dataclasses.replace(part, content=content)]
            case ReasoningPart():
                if part.provider == self.target:
                    return [part]
                for artefact, detail in self.reasoning_drops(part):
                    self.report.dropped(self.where(index, position), artefact, detail)
                return []
            case ProviderPart():
                if part.provider == self.target:
                    return [part]
                salvage = self.source_rules.salvage
                found = None if salvaged or salvage is None else salvage(part)
                if found is None:
                    kind = part.payload.get("type") or ", ".join(sorted(part.payload)) or "empty"
                    artefact = self.source_rules.payload_artefact
                    self.report.dropped(self.where(index, position), artefact, str(kind))
                    return []
                for artefact, detail in found.drops:
                    self.report.dropped(self.where(index, position), artefact, detail)
                self.cited.extend(found.citations)
                out: list[Part] = []
                for item in found.parts:
                    out.extend(self.part(index, position, item, role, salvaged=True))
                return out
            case _:
                assert_never(part)

    def reasoning_drops(self, part: ReasoningPart) -> tuple[tuple[str, str], ...]:
        """What the source's rules name the reasoning part (never nothing: it is dropped)."""
        salvage = self.source_rules.salvage
        found = salvage(part) if salvage is not None else None
        return found.drops if found is not None and found.drops else (reasoning_drop(part),)

    def text_details(self, index: int, position: int, part: TextPart) -> TextPart:
        """The text, without another provider's details on it (e.g. Anthropic citations),
        each reported as dropped."""
        details = part.provider_details
        if not details:
            return part
        reader = self.source_rules.text_citations
        found = list(reader(part)) if reader is not None and self.target not in details else []
        self.cited.extend(found)
        for key, value in details.items():
            if found and isinstance(value, dict):  # the citations cross as text
                value = {k: v for k, v in value.items() if k != "citations"}
            if key != self.target and isinstance(value, dict) and value:
                detail = f"{', '.join(sorted(value))} on a text block"
                artefact = self.source_rules.payload_artefact
                self.report.dropped(self.where(index, position), artefact, detail)
        kept = {k: v for k, v in details.items() if k == self.target}
        return dataclasses.replace(part, provider_details=kept or None)

    def call_details(self, index: int, position: int, part: ToolCallPart) -> ToolCallPart:
        details = part.provider_details or {}
        for key, value in details.items():
            if key != self.target and isinstance(value, dict):
                if isinstance(value.get("thought_signature"), str):
                    detail = f"the thought signature on call {part.name!r}"
                    self.report.dropped(self.where(index, position), "thought_signature", detail)
        kept = {k: v for k, v in details.items() if k == self.target}
        return dataclasses.replace(part, provider_details=kept or None)

    def media(self, index: int, position: int, part: MediaPart, where: Position) -> ContentPart:
        part = with_sniffed_type(part)
        reason = media_drop_reason(
            part,
            source=self.source,
            target=self.target,
            position=where,
            input_types=self.input_types,
            model=self.model,
            accepts=self.target_rules.accepts_media,
        )
        if reason is None:
            return dataclasses.replace(part, provider_ref=None)
        artefact = "tool_result_media" if where == "tool_result" else "media"
        extra: dict[str, Any] = {"mime_type": part.mime_type}
        if self.model is not None:
            extra["model"] = self.model
        self.report.dropped(self.where(index, position), artefact, reason, **extra)
        return placeholder(part, reason)

    # -- pass 2: pair tool rounds, re-key ids -------------------------------------------

    def pair(
        self, messages: list[tuple[int, Message, list[tuple[int, Part]]]]
    ) -> list[tuple[int, Message]]:
        out: list[tuple[int, Message]] = []
        for index, message, parts in messages:
            if not parts:  # everything in it was dropped: it is removed
                out.append((index, Message(message.role, (), message.provider)))
                continue
            has_results = any(isinstance(part, ToolResultPart) for _, part in parts)
            if self.open and not has_results:
                self.refuse_open()
            kept: list[Part] = []
            for position, part in parts:
                if isinstance(part, ToolCallPart):
                    kept.append(self.call(index, position, part))
                elif isinstance(part, ToolResultPart):
                    kept.append(self.result(index, position, part))
                else:
                    kept.append(part)
            provider = message.provider
            if message.role == "assistant" and self.target != NEUTRAL:
                provider = self.target
            out.append((index, Message(message.role, tuple(kept), provider)))
        if self.open:
            self.refuse_open()
        return out

    def call(self, index: int, position: int, part: ToolCallPart) -> ToolCallPart:
        where = self.where(index, position)
        if not part.name:
            self.refuse(where, f"has a tool call with no name (id {part.id!r})")
        new_id = self.rekey(part.id)
        if new_id != part.id:
            self.report.rekeyed(where, part.name, part.id, new_id)
        self.used.add(new_id)
        self.open.append(_Open(part.id, new_id, part.name, where))
        return dataclasses.replace(part, id=new_id)

    def result(self, index: int, position: int, part: ToolResultPart) -> ToolResultPart:
        if part.call_id:
            match = next((call for call in self.open if call.id == part.call_id), None)
        else:  # an id-less Gemini response answers the earliest open call of its name
            match = next((call for call in self.open if call.name == part.name), None)
        if match is None:
            what = f"tool result (call id {part.call_id!r}, name {part.name!r})"
            self.refuse(self.where(index, position), f"has a {what} that matches no call")
        self.open.remove(match)
        return dataclasses.replace(part, call_id=match.new_id, name=part.name or match.name)

    def rekey(self, call_id: str) -> str:
        prefix = self.target_rules.call_id_prefix
        conventional = prefix is None or (
            call_id.startswith(prefix) and _ID_BODY.fullmatch(call_id) is not None
        )
        if call_id and conventional and call_id not in self.used:
            return call_id
        attempt = 0
        while True:
            seed = f"{self.source}:{len(self.used)}:{call_id}:{attempt}"
            new_id = (prefix or "call_") + hashlib.sha256(seed.encode()).hexdigest()[:24]
            if new_id not in self.used:
                return new_id
            attempt += 1

    def refuse_open(self) -> NoReturn:
        calls = ", ".join(f"{call.name} ({call.id})" for call in self.open)
        verb = "has" if len(self.open) == 1 else "have"
        self.refuse(self.open[0].index, f"ends inside a tool round: {calls} {verb} no result")

    def refuse(self, index: int, what: str) -> NoReturn:
        target = "" if self.target == NEUTRAL else f" for {self.target}"
        raise SessionCompatibilityError(
            f"cannot convert the {self.source} history{target}: message {index} {what}",
            source=self.source,
            target=None if self.target == NEUTRAL else self.target,
            index=index,
        )
