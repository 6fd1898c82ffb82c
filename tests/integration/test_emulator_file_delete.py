"""The emulator's Files API DELETE endpoints, through each real SDK: a deleted file is
gone for the SDK (its not-found error) and marked deleted in the store, and a second
delete is refused the same way."""

from __future__ import annotations

import io

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from doc_processing_toolkit.testing.emulator import ProviderEmulator

pytestmark = pytest.mark.anyio
KEY = "offline-test-key"
DATA = b"%PDF-1.4 delete me"


async def test_anthropic_files_delete() -> None:
    with ProviderEmulator() as emu:
        client = anthropic.AsyncAnthropic(api_key=KEY, base_url=emu.anthropic_base_url)
        uploaded = await client.beta.files.upload(file=("a.pdf", DATA, "application/pdf"))
        deleted = await client.beta.files.delete(uploaded.id)
        assert (deleted.id, deleted.type) == (uploaded.id, "file_deleted")
        with pytest.raises(anthropic.NotFoundError):
            await client.beta.files.retrieve_metadata(uploaded.id)
        with pytest.raises(anthropic.NotFoundError):
            await client.beta.files.delete(uploaded.id)
        stored = emu.files.get(uploaded.id)
        await client.close()
    assert stored is not None and stored.deleted and stored.data == DATA


async def test_openai_files_delete() -> None:
    with ProviderEmulator() as emu:
        client = openai.AsyncOpenAI(api_key=KEY, base_url=emu.openai_base_url)
        uploaded = await client.files.create(
            file=("a.pdf", DATA, "application/pdf"), purpose="user_data"
        )
        deleted = await client.files.delete(uploaded.id)
        assert (deleted.id, deleted.deleted) == (uploaded.id, True)
        with pytest.raises(openai.NotFoundError):
            await client.files.retrieve(uploaded.id)
        stored = emu.files.get(uploaded.id)
        await client.close()
    assert stored is not None and stored.deleted


async def test_google_files_delete() -> None:
    with ProviderEmulator() as emu:
        client = genai.Client(
            api_key=KEY,
            vertexai=False,
            http_options=genai_types.HttpOptions(
                base_url=emu.google_base_url,
                retry_options=genai_types.HttpRetryOptions(attempts=1),
            ),
        )
        uploaded = await client.aio.files.upload(
            file=io.BytesIO(DATA),
            config=genai_types.UploadFileConfig(mime_type="application/pdf"),
        )
        assert uploaded.name is not None
        await client.aio.files.delete(name=uploaded.name)
        with pytest.raises(genai_errors.ClientError) as caught:
            await client.aio.files.get(name=uploaded.name)
        assert caught.value.code == 404
        stored = emu.files.get(uploaded.name)
        await client.aio.aclose()
    assert stored is not None and stored.deleted
