"""An Agent's deployment, checked and resolved at construction.

``Agent(deployment=..., deployment_options=...)`` (or ``DPT_<PROVIDER>_DEPLOYMENT``) names
the cloud serving the model; the registry row says which clouds serve it, at what id and
price (`ModelInfo.deployments`). The run loop never asks: the resolved row carries the
deployment's id, prices and gaps, and the model client is built for the deployment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit.application.config import environment
from doc_processing_toolkit.domain.deployments import (
    CREDENTIAL_OPTIONS,
    DEPLOYMENT_OPTIONS,
    check_options,
)
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.registry import ModelInfo

__all__ = [
    "check_deployment",
    "deployment_client_kwargs",
    "deployment_lookup",
    "deployment_row",
    "exported_options",
    "resolve_deployment",
    "row_lacks_batch",
]


def check_deployment(deployment: Any, options: Any) -> dict[str, Any] | None:
    """The validated ``deployment_options`` (a copy) of ``deployment``.

    Raises:
        ConfigurationError: an unknown deployment, options that are not a dict, options
            without a deployment, or an option the deployment does not take.
    """
    if options is not None and not isinstance(options, Mapping):
        raise ConfigurationError(
            f"deployment_options must be a dict or None, got {type(options).__name__}"
        )
    if deployment is None:
        if options:
            raise ConfigurationError("deployment_options given without a deployment")
        return None
    if deployment not in DEPLOYMENT_OPTIONS:
        raise ConfigurationError(
            f"deployment must be one of {', '.join(DEPLOYMENT_OPTIONS)} or None, got {deployment!r}"
        )
    check_options(deployment, options or {})
    for name in CREDENTIAL_OPTIONS:  # masked in logs, errors and reprs from here on
        value = (options or {}).get(name)
        if isinstance(value, str):
            register_secret(value)
    return dict(options) if options is not None else None


def exported_options(
    options: Mapping[str, Any] | None,
) -> tuple[dict[str, Any] | None, list[str]]:
    """(the options ``to_config()`` writes, the credential options it withholds)."""
    if not options:
        return None, []
    withheld = sorted(name for name in options if name in CREDENTIAL_OPTIONS)
    kept = {k: v for k, v in options.items() if k not in CREDENTIAL_OPTIONS}
    return kept or None, withheld


def resolve_deployment(deployment: str | None, provider: str) -> str | None:
    """The Agent's deployment, else ``DPT_<PROVIDER>_DEPLOYMENT``.

    Raises:
        ConfigurationError: the variable names no deployment.
    """
    if deployment is not None:
        return deployment
    chosen = environment.deployment(provider)
    if chosen is not None and chosen not in DEPLOYMENT_OPTIONS:
        raise ConfigurationError(
            f"DPT_{provider.upper()}_DEPLOYMENT must be one of {', '.join(DEPLOYMENT_OPTIONS)},"
            f" got {chosen!r}"
        )
    return chosen


def deployment_row(row: ModelInfo | None, deployment: str | None, model: str) -> ModelInfo | None:
    """``row`` as served by ``deployment`` (its id, prices and gaps).

    Raises:
        ConfigurationError: the row does not list the deployment (naming the ones it has),
            or the model has no row to tell.
    """
    if deployment is None:
        return row
    if row is None:
        raise ConfigurationError(
            f"model {model} has no registry row, so nothing says it is served on "
            f"{deployment}: add a row with a deployments entry (registry=...)"
        )
    if deployment not in row.deployments:
        raise ConfigurationError(
            f"model {row.model} is not served on deployment {deployment!r}: its registry row "
            f"lists {', '.join(row.deployment_names)}"
        )
    return row.for_deployment(deployment)


def deployment_lookup(
    lookup: Callable[[str], ModelInfo | None], deployment: str | None
) -> Callable[[str], ModelInfo | None]:
    """``lookup`` whose rows are priced as ``deployment`` serves them (rows it lists)."""
    if deployment is None:
        return lookup

    def row(model: str) -> ModelInfo | None:
        found = lookup(model)
        if found is None or deployment not in found.deployments:
            return found
        return found.for_deployment(deployment)

    return row


def deployment_client_kwargs(
    deployment: str | None, options: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The model client's ``deployment`` / ``deployment_options`` keywords (none for the
    provider's own API)."""
    if deployment is None:
        return {}
    return {"deployment": deployment, "deployment_options": dict(options or {})}


def row_lacks_batch(row: ModelInfo | None, deployment: str) -> bool:
    """Whether ``deployment`` of ``row`` has no batch API the toolkit drives (its registry
    entry lists ``batch_api``; a row without the entry too)."""
    info = row.deployments.get(deployment) if row is not None else None
    return info is None or "batch_api" in info.unsupported
