"""What a provider mapping hands its client for one SDK call (`WireRequest`), and the
pieces every mapping's ``build_request`` shares: the `RequestDraft` its section builders
fill in, the routing of ``provider_options`` keys, the wire model id (pure data)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from doc_processing_toolkit.adapters.providers._options import VendorOptions
from doc_processing_toolkit.domain.registry import ModelInfo
from doc_processing_toolkit.domain.requests import ModelRequest

__all__ = ["RequestDraft", "WireRequest", "wire_int", "wire_model"]

_Wire = TypeVar("_Wire", bound="WireRequest")


@dataclass(frozen=True, slots=True)
class WireRequest:
    """The SDK call's keyword arguments plus what the client logs about them."""

    params: dict[str, Any]
    """Typed keyword arguments of the SDK method."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Body keys the typed signature lacks."""
    extra_headers: dict[str, str] = field(default_factory=dict)
    """Headers the request adds (e.g. ``anthropic-beta``)."""
    downgraded_tool_choice: str | None = None
    """The forced tool_choice that was downgraded to auto (the model cannot force tools)."""
    notes: tuple[str, ...] = ()
    """What the mapping did that a reader of the DEBUG log should know."""
    ignored_options: tuple[str, ...] = ()
    """provider_options keys this adapter does not send."""
    warnings: tuple[str, ...] = ()
    """What the client logs at WARNING."""
    built_in_tools: tuple[str, ...] = ()
    """The neutral names of the built-in tools the request carries."""


class RequestDraft:
    """A request being mapped: each section builder of a ``build_request`` adds to it, in
    the order the orchestrating function calls them (the order of ``params`` keys).

    A plain slotted class: one is made per request, on the hot path.
    """

    __slots__ = ("extra_body", "extra_headers", "ignored", "notes", "params", "warnings")

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        """The SDK call's keyword arguments so far (Gemini: its ``config``)."""
        self.notes: list[str] = []
        """Debug notes (`WireRequest.notes`)."""
        self.warnings: list[str] = []
        """Warnings (`WireRequest.warnings`)."""
        self.ignored: list[str] = []
        """provider_options keys not sent (`WireRequest.ignored_options`)."""
        self.extra_body: dict[str, Any] = {}
        """Body keys sent through the SDK's ``extra_body``."""
        self.extra_headers: dict[str, str] = {}
        """Headers sent through the SDK's ``extra_headers``."""

    def wire(self, cls: type[_Wire], **reported: Any) -> _Wire:
        """The finished request as ``cls`` (a `WireRequest`), with what else the mapping
        ``reported`` (a downgraded tool choice, the built-in tools sent, ...)."""
        return cls(
            params=self.params,
            extra_body=self.extra_body,
            extra_headers=self.extra_headers,
            notes=tuple(self.notes),
            ignored_options=tuple(self.ignored),
            warnings=tuple(self.warnings),
            **reported,
        )

    def route_option(self, key: str, value: Any, rules: VendorOptions) -> None:
        """Send one ``provider_options`` entry where the vendor's ``rules`` say.

        A typed keyword (`VendorOptions.request_keywords`) goes into `params` as given,
        ``extra_headers`` / ``extra_body`` mappings are merged, a key consumed elsewhere
        (`VendorOptions.consumed_options`) is not sent, a documented one this adapter
        does not send (`VendorOptions.unsent_options`) is named in `ignored`; anything
        else goes through ``extra_body``, with a note.
        """
        if key in rules.request_keywords:
            self.params[key] = value
        elif key == "extra_headers" and isinstance(value, Mapping):
            self.extra_headers.update({str(k): str(v) for k, v in value.items()})
        elif key == "extra_body" and isinstance(value, Mapping):
            self.extra_body.update(value)
        elif key in rules.consumed_options:
            return
        elif key in rules.unsent_options:
            self.ignored.append(key)
        else:
            self.extra_body[key] = value
            self.notes.append(f"provider option {key!r} sent through extra_body")


def wire_model(request: ModelRequest, row: ModelInfo | None) -> str:
    """The model id sent on the wire: the row's ``api_model`` when it has one."""
    return row.api_model if row is not None and row.api_model else request.model


def wire_int(value: Any) -> int:
    """``value`` when it is an int (not a bool), else 0: a usage figure read off the wire."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
