"""The clouds' URL shapes and authentication, in front of the providers' own dialects.

Each route checks the credentials as the real service does, then answers through the
provider's handler (the body is the same dialect):

- Amazon Bedrock, ``/model/{model}/invoke-with-response-stream`` and ``/model/{model}/invoke``:
  the AWS SigV4 signature is recomputed from the request with botocore's signer (for
  `AWS_ACCESS_KEY` / `AWS_SECRET_KEY`) and compared; a mismatch is Bedrock's 403
  ``InvalidSignatureException``, an unknown key its ``UnrecognizedClientException``. A
  stream goes out in the AWS event-stream encoding (``chunk`` events whose ``bytes`` is
  the base64 of one Messages event), as Bedrock sends it.
- Vertex AI, ``/v1/projects/{project}/locations/{location}/publishers/anthropic/models/
  {model}:streamRawPredict`` (Claude) and ``/v1beta1/.../publishers/google/models/
  {model}:streamGenerateContent`` (Gemini): ``Authorization: Bearer`` `VERTEX_TOKEN`, else
  Google's 401 ``UNAUTHENTICATED``.
- Microsoft Foundry, ``/anthropic/v1/messages``: ``x-api-key`` / ``api-key`` `FOUNDRY_KEY`.
- Azure OpenAI, ``/openai/responses?api-version=...``: the ``api-key`` header `AZURE_KEY` or
  ``Authorization: Bearer`` `AZURE_KEY`, else Azure's 401; the body's ``model`` (the
  deployment name) must be one of `AZURE_DEPLOYMENTS` or it is Azure's 404
  ``DeploymentNotFound``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import struct
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from doc_processing_toolkit.testing.emulator import anthropic_wire, google_wire, openai_wire
from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall

__all__ = [
    "AWS_ACCESS_KEY",
    "AWS_REGION",
    "AWS_SECRET_KEY",
    "AZURE_DEPLOYMENTS",
    "AZURE_KEY",
    "DEPLOYMENT_ROUTES",
    "FOUNDRY_KEY",
    "VERTEX_TOKEN",
    "event_stream_frame",
]

AWS_ACCESS_KEY = "AKIAEMULATOR00000000"
AWS_SECRET_KEY = "emulator/secret/key/0000000000000000000000"
AWS_REGION = "us-east-1"
VERTEX_TOKEN = "ya29.emulator-access-token"
FOUNDRY_KEY = "foundry-emulator-key"
AZURE_KEY = "azure-emulator-key"
AZURE_DEPLOYMENTS: set[str] = {"gpt-4o", "gpt-4.1"}
"""The Azure deployment names the emulated resource has (a test may add its own)."""


# -- Amazon Bedrock ----------------------------------------------------------------------


def _aws_error(kind: str, message: str) -> Response:
    return JSONResponse(
        {"message": message}, 403, headers={"x-amzn-ErrorType": f"{kind}:http://internal"}
    )


def _sigv4_problem(call: EmulatorCall, raw: bytes) -> Response | None:
    """Bedrock's 403 when the request's SigV4 signature is not the one botocore computes
    for the emulator's credentials; None when it matches."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    headers = call.request.headers
    auth = headers.get("authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return _aws_error("MissingAuthenticationTokenException", "Missing Authentication Token")
    fields = dict(
        part.strip().split("=", 1) for part in auth[len("AWS4-HMAC-SHA256 ") :].split(",")
    )
    access_key, date, region, service, _ = fields.get("Credential", "////").split("/", 4)
    if access_key != AWS_ACCESS_KEY:
        return _aws_error(
            "UnrecognizedClientException", "The security token included in the request is invalid."
        )
    signed = fields.get("SignedHeaders", "").split(";")
    request = AWSRequest(
        method=call.request.method,
        url=_raw_url(call),
        headers={name: headers.get(name, "") for name in signed},
        data=raw,
    )
    request.context["timestamp"] = headers.get("x-amz-date", "")
    token = headers.get("x-amz-security-token")
    signer = SigV4Auth(Credentials(AWS_ACCESS_KEY, AWS_SECRET_KEY, token), service, region)
    expected = signer.signature(
        signer.string_to_sign(request, signer.canonical_request(request)), request
    )
    if expected != fields.get("Signature") or not date:
        return _aws_error(
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method.",
        )
    return None


def _raw_url(call: EmulatorCall) -> str:
    scope = call.request.scope
    path = scope.get("raw_path", b"").decode("latin-1") or call.request.url.path
    query = scope.get("query_string", b"").decode("latin-1")
    host = call.request.headers.get("host", "127.0.0.1")
    return f"http://{host}{path}" + (f"?{query}" if query else "")


def _header(name: str, value: str) -> bytes:
    encoded_name, encoded = name.encode(), value.encode()
    return (
        struct.pack("!B", len(encoded_name))
        + encoded_name
        + struct.pack("!BH", 7, len(encoded))
        + encoded
    )


def event_stream_frame(payload: bytes, event_type: str = "chunk") -> bytes:
    """One AWS event-stream message (``:message-type`` event) carrying ``payload``."""
    headers = (
        _header(":event-type", event_type)
        + _header(":content-type", "application/json")
        + _header(":message-type", "event")
    )
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack("!II", total, len(headers))
    prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + headers + payload
    return message + struct.pack("!I", binascii.crc32(message) & 0xFFFFFFFF)


async def _event_stream(sse: AsyncIterable[Any]) -> AsyncIterator[bytes]:
    """Server-sent Messages events re-encoded as Bedrock ``chunk`` events."""
    buffer = b""
    async for piece in sse:
        buffer += piece if isinstance(piece, bytes) else str(piece).encode()
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    data = line[5:].strip()
                    chunk = json.dumps({"bytes": base64.b64encode(data).decode()})
                    yield event_stream_frame(chunk.encode())


async def _bedrock(call: EmulatorCall, streaming: bool) -> Response:
    problem = _sigv4_problem(call, await call.request.body())
    if problem is not None:
        return problem
    body = {**call.body, "model": call.path_params["model"], "stream": streaming}
    response = await anthropic_wire.handle_messages(dataclasses.replace(call, body=body))
    if isinstance(response, StreamingResponse):
        return StreamingResponse(
            _event_stream(response.body_iterator),
            media_type="application/vnd.amazon.eventstream",
            headers={"x-amzn-requestid": "emulated-request"},
        )
    return response


async def handle_bedrock_stream(call: EmulatorCall) -> Response:
    """POST /model/{model}/invoke-with-response-stream."""
    return await _bedrock(call, streaming=True)


async def handle_bedrock_invoke(call: EmulatorCall) -> Response:
    """POST /model/{model}/invoke."""
    return await _bedrock(call, streaming=False)


# -- Vertex AI ---------------------------------------------------------------------------


def _vertex_problem(call: EmulatorCall) -> Response | None:
    if call.request.headers.get("authorization") == f"Bearer {VERTEX_TOKEN}":
        return None
    message = (
        "Request had invalid authentication credentials. Expected OAuth 2 access token, "
        "login cookie or other valid authentication credential."
    )
    return JSONResponse(
        {"error": {"code": 401, "message": message, "status": "UNAUTHENTICATED"}}, 401
    )


async def handle_vertex_claude(call: EmulatorCall) -> Response:
    """POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{model}:...Predict."""
    problem = _vertex_problem(call)
    if problem is not None:
        return problem
    body = {**call.body, "model": call.path_params["model"]}
    return await anthropic_wire.handle_messages(dataclasses.replace(call, body=body))


async def handle_vertex_gemini_stream(call: EmulatorCall) -> Response:
    """POST .../publishers/google/models/{model}:streamGenerateContent (Gemini on Vertex)."""
    return _vertex_problem(call) or await google_wire.handle_stream(call)


async def handle_vertex_gemini_generate(call: EmulatorCall) -> Response:
    """POST .../publishers/google/models/{model}:generateContent."""
    return _vertex_problem(call) or await google_wire.handle_generate(call)


# -- Microsoft Foundry and Azure OpenAI --------------------------------------------------


async def handle_foundry(call: EmulatorCall) -> Response:
    """POST /anthropic/v1/messages (Claude on Microsoft Foundry)."""
    headers = call.request.headers
    if FOUNDRY_KEY not in (headers.get("x-api-key"), headers.get("api-key")):
        return JSONResponse(
            anthropic_wire.error_body("authentication_error", "invalid x-api-key", "req_x"), 401
        )
    return await anthropic_wire.handle_messages(call)


async def handle_azure_responses(call: EmulatorCall) -> Response:
    """POST /openai/responses?api-version=... (and /openai/v1/responses)."""
    headers = call.request.headers
    if AZURE_KEY not in (headers.get("api-key"), headers.get("authorization", "")[7:]):
        message = (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure "
            "to provide a valid key for an active subscription and use a correct regional "
            "API endpoint for your resource."
        )
        return JSONResponse({"error": {"code": "401", "message": message}}, 401)
    deployment = str(call.body.get("model"))
    if deployment not in AZURE_DEPLOYMENTS:
        message = "The API deployment for this resource does not exist."
        return JSONResponse({"error": {"code": "DeploymentNotFound", "message": message}}, 404)
    return await openai_wire.handle_responses(call)


_VERTEX = "/{version}/projects/{project}/locations/{location}/publishers"
DEPLOYMENT_ROUTES: dict[str, DialectRoute] = {
    "/model/{model}/invoke-with-response-stream": DialectRoute("anthropic", handle_bedrock_stream),
    "/model/{model}/invoke": DialectRoute("anthropic", handle_bedrock_invoke),
    f"{_VERTEX}/anthropic/models/{{model}}:streamRawPredict": DialectRoute(
        "anthropic", handle_vertex_claude
    ),
    f"{_VERTEX}/anthropic/models/{{model}}:rawPredict": DialectRoute(
        "anthropic", handle_vertex_claude
    ),
    f"{_VERTEX}/google/models/{{model}}:streamGenerateContent": DialectRoute(
        "google", handle_vertex_gemini_stream
    ),
    f"{_VERTEX}/google/models/{{model}}:generateContent": DialectRoute(
        "google", handle_vertex_gemini_generate
    ),
    "/anthropic/v1/messages": DialectRoute("anthropic", handle_foundry),
    "/openai/responses": DialectRoute("openai", handle_azure_responses),
    "/openai/v1/responses": DialectRoute("openai", handle_azure_responses),
}
"""The deployment routes (listed in `DIALECT_ROUTES`)."""
