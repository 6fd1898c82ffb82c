"""The Gemini adapter's fast path (private google-genai members) and its public-SDK path,
on the same emulator traffic: the same requests sent, the same IR, usage, stop reason and
errors back (``doc_processing_toolkit.testing.contract.sdk_paths``)."""

from __future__ import annotations

from doc_processing_toolkit.testing.contract.sdk_paths import SdkPathComparison

CONTRACT_PRESET = "google"


class TestGoogleSdkPaths(SdkPathComparison):
    """Both paths of the Gemini adapter, compared."""
