"""What an Agent holds and releases, tool_timeout, and the redaction of exception chains
and third-party log records."""

from __future__ import annotations

import gc
import logging
import os
import threading
import traceback
import warnings
from pathlib import Path

import pytest

from doc_processing_toolkit import Agent, ServerError, tool
from doc_processing_toolkit._logging import register_secret
from doc_processing_toolkit._redaction import (
    RedactedCause,
    install_third_party_redaction,
    scrub_exception_chain,
)
from doc_processing_toolkit.application.resources import failed_run_error
from doc_processing_toolkit.testing import FakeModel
from doc_processing_toolkit.testing.script import reply, tool_call

MODEL = "claude-sonnet-5-5"


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def agent_loggers() -> int:
    return sum(
        1
        for name in logging.Logger.manager.loggerDict
        if name.startswith("doc_processing_toolkit.Agent.") and name.count(".") >= 3
    )


@pytest.fixture
def file_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DPT_AGENT_LOG_TO_FILE", raising=False)
    monkeypatch.delenv("AGENT_LOG_LEVEL", raising=False)


@pytest.mark.anyio
@pytest.mark.usefixtures("file_logging")
async def test_many_agents_with_file_logging_leave_no_descriptor_or_logger(tmp_path: Path) -> None:
    count = int(os.environ.get("DPT_SOAK_AGENTS", "300"))

    def make_and_close(index: int) -> Agent:
        return Agent(
            MODEL,
            client=FakeModel(default=reply("ok")),
            log_file=str(tmp_path / f"agent-{index}.log"),
            log_level="DEBUG",
        )

    warm = make_and_close(-1)
    await warm.run("hi")
    await warm.close()
    gc.collect()
    fds, loggers, rss = open_fds(), agent_loggers(), rss_kib()
    for index in range(count):
        agent = make_and_close(index)
        if index % 50 == 0:
            await agent.run("hi")
        await agent.close()
    gc.collect()
    assert open_fds() <= fds + 2
    assert agent_loggers() <= loggers
    assert "Agent created" in (tmp_path / "agent-7.log").read_text()
    growth_mib = (rss_kib() - rss) / 1024
    print(f"{count} Agents: fds {fds} -> {open_fds()}, RSS growth {growth_mib:.1f} MiB")
    if count >= 3000:  # the soak bound (a short run is too noisy to bound RSS)
        assert growth_mib < 5


@pytest.mark.anyio
@pytest.mark.usefixtures("file_logging")
async def test_an_agent_used_again_after_close_logs_again(tmp_path: Path) -> None:
    log_file = tmp_path / "again.log"
    agent = Agent(MODEL, client=FakeModel(default=reply("ok")), log_file=str(log_file))
    await agent.run("first")
    await agent.close()
    await agent.run("second")
    await agent.close()
    assert log_file.read_text().count("started") == 2


@pytest.mark.usefixtures("file_logging")
def test_an_unclosed_agent_holding_a_log_file_warns_when_collected(tmp_path: Path) -> None:
    agent = Agent(MODEL, client=FakeModel(), log_file=str(tmp_path / "leak.log"))
    fds = open_fds()
    with pytest.warns(ResourceWarning, match="without close"):
        del agent
        gc.collect()
    assert open_fds() < fds


def test_a_console_only_agent_collected_unclosed_does_not_warn() -> None:
    agent = Agent(MODEL, client=FakeModel())
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        del agent
        gc.collect()


# -- tool_timeout ----------------------------------------------------------------------

release = threading.Event()


@tool
def hangs() -> str:
    """Never answers in time."""
    release.wait(30)
    return "late"


@tool
async def hangs_async() -> str:
    """Never answers in time either."""
    import anyio

    await anyio.sleep(30)
    return "late"


@pytest.mark.parametrize("name", ["hangs", "hangs_async"])
def test_a_hanging_local_tool_gets_an_error_result_naming_the_limit(name: str) -> None:
    fake = FakeModel([tool_call(name), reply("gave up")])
    agent = Agent(MODEL, tools=[hangs, hangs_async], client=fake, tool_timeout=0.2)
    try:
        result = agent.run_sync("go")
    finally:
        release.set()
    assert result.output == "gave up"
    fed_back = str(fake.requests[1].messages[-1])
    assert "tool_timeout=0.2 s" in fed_back


def test_timeouts_are_validated() -> None:
    for name in ("connect_timeout", "request_timeout", "stream_idle_timeout", "tool_timeout"):
        with pytest.raises(ValueError, match=name):
            Agent(MODEL, client=FakeModel(), **{name: 0})  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=name):
            Agent(MODEL, client=FakeModel(), **{name: "3"})  # type: ignore[arg-type]
    agent = Agent(MODEL, client=FakeModel(), stream_idle_timeout=None, request_timeout=30)
    assert agent.settings.timeouts.stream_idle_timeout is None
    assert agent.settings.timeouts.client_timeouts == {"timeout": 30.0}


# -- redaction -------------------------------------------------------------------------

SECRET = "sk-unit-canary-aaaabbbbccccdddd"


class SdkError(Exception):
    """Stands in for an SDK exception carrying a raw body."""

    def __init__(self, message: str, body: dict[str, str]) -> None:
        super().__init__(message)
        self.body = body


def raise_chain() -> ServerError:
    register_secret(SECRET)
    try:
        try:
            raise OSError(f"transport saw https://user:{SECRET}@host/path?key={SECRET}")
        except OSError as inner:
            raise SdkError(f"Error code: 500 - {{'echo': '{SECRET}'}}", {"k": SECRET}) from inner
    except SdkError as exc:
        try:
            raise ServerError("anthropic HTTP 500 api_error: ***", status_code=500) from exc
        except ServerError as error:
            return error


def test_scrubbed_chain_shows_types_and_frames_but_no_secret() -> None:
    error = scrub_exception_chain(raise_chain())
    text = "".join(traceback.format_exception(error))
    assert SECRET not in text
    assert isinstance(error.__cause__, RedactedCause)
    assert error.__cause__.original_type.endswith("SdkError")
    assert isinstance(error.__cause__.__cause__, RedactedCause)
    assert "raise_chain" in text  # the frames are kept
    assert scrub_exception_chain(error) is error  # idempotent


def test_failed_run_error_carries_the_partial_result() -> None:
    error = failed_run_error(raise_chain(), {"cost": 0.5})
    assert error.partial_result == {"cost": 0.5}  # type: ignore[attr-defined]


def test_third_party_records_are_redacted_at_any_level() -> None:
    install_third_party_redaction()
    register_secret(SECRET)
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    handler = Collect()
    for name in ("anthropic._base_client", "mcp.client.session", "httpx2"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            logger.debug("Request options: %s", {"authorization_token": SECRET})
            try:
                raise ValueError(f"boom {SECRET}")
            except ValueError:
                logger.exception("failed")
        finally:
            logger.removeHandler(handler)
            logger.setLevel(logging.NOTSET)
    assert len(seen) == 6
    assert not any(SECRET in line for line in seen)
    assert any("Traceback" in line for line in seen)


def test_timeouts_have_yaml_keys_and_round_trip() -> None:
    yaml_text = (
        "model: claude-sonnet-5-5\n"
        "connect_timeout: 4\nrequest_timeout: 90\nstream_idle_timeout: 20\ntool_timeout: 7.5\n"
    )
    agent = Agent.from_config_string(yaml_text)
    t = agent.settings.timeouts
    assert (t.connect_timeout, t.request_timeout, t.stream_idle_timeout, t.tool_timeout) == (
        4.0,
        90.0,
        20.0,
        7.5,
    )
    config = agent.to_config()
    assert config["stream_idle_timeout"] == 20.0 and config["tool_timeout"] == 7.5
    assert "stream_idle_timeout" not in Agent(MODEL, client=FakeModel()).to_config()
