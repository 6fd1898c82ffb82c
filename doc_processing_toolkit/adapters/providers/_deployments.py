"""Cloud deployments of the providers' models: which SDK client serves each, its options,
and what an authentication failure there means.

A deployment changes the endpoint, the authentication, the model id and the price row;
the wire dialect stays the provider's (the Anthropic Messages API on Bedrock, Vertex AI
and Microsoft Foundry; the Gemini API on Vertex AI; the Responses API on Azure OpenAI),
so every mapping, stream assembler and codec is the provider's own. The SDK clients:

- ``bedrock``: ``anthropic.AsyncAnthropicBedrock`` (SigV4 by botocore: the ``bedrock``
  extra). Options ``region`` (else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / the
  profile's), ``aws_profile``, ``aws_access_key``, ``aws_secret_key``,
  ``aws_session_token`` (else the usual AWS credential chain), ``base_url``.
- ``vertex``: ``anthropic.AsyncAnthropicVertex`` for Claude (the ``vertex`` extra);
  ``genai.Client(vertexai=True)`` for Gemini. Options ``project``, ``location`` (else
  ``ANTHROPIC_VERTEX_PROJECT_ID`` / ``GOOGLE_CLOUD_PROJECT`` and ``CLOUD_ML_REGION`` /
  ``GOOGLE_CLOUD_LOCATION``), ``access_token`` or ``credentials`` (else Application
  Default Credentials), ``base_url``.
- ``foundry``: ``anthropic.AsyncAnthropicFoundry``. Options ``resource``, ``api_key`` (else
  ``ANTHROPIC_FOUNDRY_API_KEY``) or ``azure_ad_token_provider``, ``base_url``.
- ``azure``: ``openai.AsyncAzureOpenAI``. Options ``azure_endpoint``, ``api_version``,
  ``azure_deployment``, ``api_key`` (else ``AZURE_OPENAI_API_KEY``) or
  ``azure_ad_token_provider`` (else ``AZURE_OPENAI_ENDPOINT`` / ``OPENAI_API_VERSION``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit.domain.deployments import CREDENTIAL_OPTIONS

__all__ = ["AUTH_REMEDIES", "auth_remedy", "register_option_secrets"]

AUTH_REMEDIES: dict[str, str] = {
    "bedrock": (
        "Amazon Bedrock refused the AWS credentials (a wrong or expired key, session token "
        "or signature): refresh them (aws sso login, new session token) or set "
        "deployment_options aws_profile / region, and check the IAM policy allows "
        "bedrock:InvokeModelWithResponseStream on the model"
    ),
    "vertex": (
        "Vertex AI refused the Google Cloud credentials: run gcloud auth "
        "application-default login (or pass a fresh access_token), and check "
        "deployment_options project / location name a project with the model enabled"
    ),
    "foundry": (
        "Microsoft Foundry refused the credentials: check ANTHROPIC_FOUNDRY_API_KEY (or "
        "deployment_options api_key / azure_ad_token_provider) and the resource name"
    ),
    "azure": (
        "Azure OpenAI refused the request: check AZURE_OPENAI_API_KEY (or deployment_options "
        "api_key / azure_ad_token_provider), azure_endpoint, and that azure_deployment names "
        "a deployment of that resource"
    ),
}
"""What to do when a deployment refuses the credentials (appended to the error)."""


def auth_remedy(deployment: str | None, status: int) -> str:
    """The remedy for an authentication or permission failure (``""`` for other statuses,
    or without a deployment)."""
    if deployment is None or status not in (401, 403, 404):
        return ""
    if status == 404 and deployment != "azure":  # a wrong Azure deployment name is a 404
        return ""
    return f" ({AUTH_REMEDIES[deployment]})"


def register_option_secrets(options: Mapping[str, Any]) -> None:
    """Register every string credential among ``options`` (masked in logs and errors)."""
    for name in CREDENTIAL_OPTIONS:
        value = options.get(name)
        if isinstance(value, str):
            register_secret(value)
