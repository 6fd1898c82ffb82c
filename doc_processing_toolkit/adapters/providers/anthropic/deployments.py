"""Claude on the clouds: the ``anthropic`` SDK's own clients for Amazon Bedrock
(``AsyncAnthropicBedrock``), Vertex AI (``AsyncAnthropicVertex``) and Microsoft Foundry
(``AsyncAnthropicFoundry``), built with this toolkit's settings (no SDK retries, the shared
connection pool). They speak the Messages API, so everything else is the Anthropic
adapter's own. The options are ``deployment_options`` (``adapters/providers/_deployments.py``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError, MissingDependencyError

__all__ = ["EventStreamDecoder", "new_deployment_client"]

EVENT_STREAM_TYPE = "application/vnd.amazon.eventstream"
"""The content type of a Bedrock stream (AWS event-stream frames, not server-sent events)."""


class EventStreamDecoder:
    """Bedrock's AWS event-stream frames as (event name, data) pairs, the interface of
    `SseDecoder`: a ``chunk`` event's ``bytes`` is one Messages event (its ``type`` the
    name); an exception frame becomes an ``error`` event with the Messages error body, as
    the SDK's own decoder does. Framing and checksums are botocore's."""

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        from botocore.eventstream import EventStreamBuffer

        self._buffer = EventStreamBuffer()

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        """The events ``chunk`` completes."""
        self._buffer.add_data(chunk)
        events: list[tuple[str | None, str]] = []
        for message in self._buffer:
            headers = message.headers
            body = message.payload.decode("utf-8")
            if headers.get(":message-type") != "event":
                error_type = str(headers.get(":exception-type") or headers.get(":error-code"))
                detail = json.loads(body).get("message", body) if body.startswith("{") else body
                error = {"type": "error", "error": {"type": error_type, "message": detail}}
                events.append(("error", json.dumps(error)))
                continue
            if headers.get(":event-type") != "chunk":
                continue
            data = base64.b64decode(json.loads(body)["bytes"]).decode("utf-8")
            name = json.loads(data).get("type") if data.startswith("{") else None
            events.append((name if isinstance(name, str) else None, data))
        return events

    def end(self) -> tuple[list[tuple[str | None, str]], None]:
        """Nothing is pending between frames."""
        return [], None


_EXTRAS = {"bedrock": "bedrock", "vertex": "vertex", "foundry": "anthropic"}


def _client_arguments(
    deployment: str, options: Mapping[str, Any], base_url: str | None
) -> tuple[str, dict[str, Any]]:
    """(the SDK class name, its constructor arguments) for ``deployment``."""
    url = options.get("base_url") or base_url
    given = {k: v for k, v in options.items() if v is not None and k != "base_url"}
    if deployment == "bedrock":
        args = {
            "aws_region": given.get("region"),
            "aws_profile": given.get("aws_profile"),
            "aws_access_key": given.get("aws_access_key"),
            "aws_secret_key": given.get("aws_secret_key"),
            "aws_session_token": given.get("aws_session_token"),
            "api_key": given.get("api_key"),
        }
        return "AsyncAnthropicBedrock", {**args, "base_url": url}
    if deployment == "vertex":
        args = {"access_token": given.get("access_token"), "credentials": given.get("credentials")}
        if "project" in given:
            args["project_id"] = given["project"]
        if "location" in given:
            args["region"] = given["location"]
        return "AsyncAnthropicVertex", {**args, "base_url": url}
    if deployment == "foundry":
        args = {k: given.get(k) for k in ("resource", "api_key", "azure_ad_token_provider")}
        return "AsyncAnthropicFoundry", {**{k: v for k, v in args.items() if v}, "base_url": url}
    raise ConfigurationError(f"anthropic: Claude is not served on deployment {deployment!r}")


def new_deployment_client(
    sdk: Any, deployment: str, options: Mapping[str, Any], base_url: str | None, http: Any
) -> Any:
    """The SDK's client for ``deployment`` (max_retries=0, ``http`` as its httpx client).

    Raises:
        MissingDependencyError: without the deployment's extra (botocore, google-auth).
        ConfigurationError: the SDK refused the options (no region, no project...).
    """
    name, args = _client_arguments(deployment, options, base_url)
    args = {k: v for k, v in args.items() if v is not None}
    try:
        cls = getattr(sdk, name)
        client = cls(**args, max_retries=0, http_client=http)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(
            f"Claude on {deployment} needs the SDK's {deployment} extra: "
            f"pip install 'doc-processing-toolkit[{_EXTRAS[deployment]}]'"
        ) from exc
    except (ValueError, sdk.AnthropicError) as exc:
        raise ConfigurationError(
            f"anthropic on {deployment}: {exc} (set it in deployment_options or the "
            "variable the SDK reads)"
        ) from exc
    if deployment == "vertex" and not getattr(client, "project_id", None):
        raise ConfigurationError(
            "anthropic on vertex: no Google Cloud project: set deployment_options project "
            "or ANTHROPIC_VERTEX_PROJECT_ID (gcloud config get-value project names yours)"
        )
    return client
