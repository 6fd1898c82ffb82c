"""The emulator checks a Bedrock request's SigV4 signature as Bedrock does: recomputed with
botocore's signer from the request received, so a body changed after signing is refused."""

from __future__ import annotations

import json

import httpx2
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from doc_processing_toolkit.testing import ProviderEmulator, Reply
from doc_processing_toolkit.testing.emulator import deployments_wire as cloud


def _signed(url: str, body: bytes, secret: str = cloud.AWS_SECRET_KEY) -> dict[str, str]:
    request = AWSRequest(
        method="POST", url=url, data=body, headers={"content-type": "application/json"}
    )
    credentials = Credentials(cloud.AWS_ACCESS_KEY, secret)
    SigV4Auth(credentials, "bedrock", cloud.AWS_REGION).add_auth(request)
    return {name.lower(): value for name, value in request.headers.items()}


def test_a_signed_request_passes_and_a_tampered_one_is_refused(emu: ProviderEmulator) -> None:
    emu.reset([Reply("signed and served")])
    url = f"{emu.url}/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke"
    body = json.dumps({"max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
    headers = _signed(url, body.encode())
    ok = httpx2.post(url, content=body.encode(), headers=headers)
    assert ok.status_code == 200 and ok.json()["content"][0]["text"] == "signed and served"

    tampered = httpx2.post(url, content=body.replace("hi", "ho").encode(), headers=headers)
    assert tampered.status_code == 403
    assert tampered.headers["x-amzn-errortype"].startswith("InvalidSignatureException")
    assert "signature we calculated does not match" in tampered.json()["message"]

    unknown = dict(headers, authorization=headers["authorization"].replace("AKIA", "AKIB"))
    refused = httpx2.post(url, content=body.encode(), headers=unknown)
    assert refused.status_code == 403
    assert refused.headers["x-amzn-errortype"].startswith("UnrecognizedClientException")
    assert emu.remaining_steps == 0
