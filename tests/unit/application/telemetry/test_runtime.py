"""The run's telemetry seams with telemetry off (the no-op) and the content rule."""

from __future__ import annotations

import pytest

from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit.application.config.settings import AgentSettings
from doc_processing_toolkit.application.telemetry import runtime
from doc_processing_toolkit.domain.errors import ConfigurationError
from doc_processing_toolkit.domain.requests import ModelRequest
from doc_processing_toolkit.ports.telemetry import NO_SPAN, NO_TELEMETRY


def test_off_every_seam_is_the_no_op() -> None:
    settings = AgentSettings(model="claude-sonnet-5-5")
    assert runtime.installed() is None
    with runtime.run_span(None, settings, "anthropic") as span:
        assert span is NO_SPAN
        assert runtime.active().telemetry is NO_TELEMETRY
        request = ModelRequest(model="m", messages=())
        assert runtime.attempt_started("anthropic", request, 1) is NO_SPAN
        with runtime.tool_span("t", {"a": 1}, call_id="c", server=None) as tool:
            assert tool is NO_SPAN
    assert runtime.trace_carrier() == {}
    with runtime.joined({"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}):
        pass


def test_the_switch_off_builds_nothing_and_on_needs_an_adapter() -> None:
    def build() -> object:
        raise AssertionError("not built when off")

    assert runtime.agent_telemetry(False, build) is None  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"deps\.telemetry"):
        runtime.agent_telemetry(True, None)


def test_content_is_redacted_like_the_logs() -> None:
    canary = "sk-unit-CANARY-9d1f3a7b"
    register_secret(canary)
    text = runtime.content({"key": canary, "auth": "Bearer abc.def.ghi", "n": 1})
    assert canary not in text and "abc.def.ghi" not in text
    assert '"n": 1' in text
