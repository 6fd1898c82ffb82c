"""The provider contract suite against the Gemini adapter on its public-SDK path.

The adapter's fast path uses private google-genai members (all of them in
``adapters/providers/google/_sdk_private.py``), chosen at import when the installed SDK
has them; ``test_contract_google.py`` runs the suite on that path. Here every test runs
with the public ``generate_content_stream`` path the adapter falls back to, so the
fallback is proven by the whole suite, not only present.
"""

from __future__ import annotations

import pytest

from doc_processing_toolkit.testing.contract import ProviderContract

CONTRACT_PRESET = "google"


@pytest.mark.usefixtures("public_sdk_path")
class TestGooglePublicSdkPathContract(ProviderContract):
    """Every contract test, for Google Gemini through the SDK's public methods."""
