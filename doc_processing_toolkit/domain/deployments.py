"""Cloud deployments as data: the ``deployment_options`` each takes, which of them are
credentials, and the check ``Agent(deployment=..., deployment_options=...)`` runs.

The clients themselves live in ``adapters/providers/_deployments.py`` and each provider's
client; which model a deployment serves, at what id and price, is the registry's
(`ModelInfo.deployments`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = ["CREDENTIAL_OPTIONS", "DEPLOYMENT_OPTIONS", "check_options"]

DEPLOYMENT_OPTIONS: dict[str, frozenset[str]] = {
    "bedrock": frozenset(
        {
            "region",
            "aws_profile",
            "aws_access_key",
            "aws_secret_key",
            "aws_session_token",
            "api_key",
            "base_url",
        }
    ),
    "vertex": frozenset({"project", "location", "access_token", "credentials", "base_url"}),
    "foundry": frozenset({"resource", "api_key", "azure_ad_token_provider", "base_url"}),
    "azure": frozenset(
        {
            "azure_endpoint",
            "api_version",
            "azure_deployment",
            "api_key",
            "azure_ad_token_provider",
            "base_url",
        }
    ),
}
"""The ``deployment_options`` keys each deployment takes."""

CREDENTIAL_OPTIONS = frozenset(
    {
        "aws_access_key",
        "aws_secret_key",
        "aws_session_token",
        "api_key",
        "access_token",
        "credentials",
        "azure_ad_token_provider",
    }
)
"""Options that are (or make) credentials: never exported, logged or shown."""


def check_options(deployment: str, options: Mapping[str, Any]) -> None:
    """Refuse an option the deployment does not take, naming the ones it does.

    Raises:
        ConfigurationError: an unknown deployment or option.
    """
    known = DEPLOYMENT_OPTIONS.get(deployment)
    if known is None:
        raise ConfigurationError(
            f"deployment must be one of {', '.join(DEPLOYMENT_OPTIONS)} or None, got {deployment!r}"
        )
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigurationError(
            f"deployment_options {unknown} are not options of deployment {deployment!r}: "
            f"it takes {', '.join(sorted(known))}"
        )
