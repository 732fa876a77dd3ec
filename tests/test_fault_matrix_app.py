"""The fault matrix, app side: what a user sees when a model, a key, the keyring, the disk or the app itself fails.

Every case runs the real thing: Google's adb server and the virtual phone, the fake LLM server behind the
official SDKs through the app's ModelRouter, gnome-keyring where a keyring is involved, and a real run
(the Orchestrator, or the `relay-desktop run` command). Each test's docstring states the expected outcome;
every wait is bounded (runs by ``asyncio.wait_for``, subprocesses and polls by deadlines), so a hang fails
the test instead of stalling the suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.backends.null
import keyring.backends.SecretService
import keyring.errors
import pytest

from relay_desktop.agent.events import ActionResult, Event, EventBus, LogLine, PlanReceived, RunFinished
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import MAX_TASK_CHARS, AgentSettings, RunResult
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.cli.main import build_parser
from relay_desktop.llm.config import LLMSettings, ModelRef
from relay_desktop.llm.keys import KeyStore
from relay_desktop.llm.redaction import install_redaction
from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.router import ModelRouter
from relay_desktop.llm.types import ROLES
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.llm_fixtures import KEY, MODELS, memory_keys, provider_settings
from tests.test_agent_e2e import PLAN, wifi_model

pytestmark = pytest.mark.timeout(45)  # a backstop only: every wait below has its own, shorter bound

E = TypeVar("E", bound=Event)
RUN_TIMEOUT = 20.0  # seconds any one run may take before the test calls it a hang
RETRY = RetryPolicy(max_attempts=2, base_delay=0.05, max_delay=0.2, max_total=10.0)
WIFI = "Turn on Wi-Fi"
BAD_KEY = "sk-proj-FAULTMATRIX-not-a-real-key-0123456789"
NON_ASCII_TASK = "Envoie « bonjour 👋 » à Bob"
NON_ASCII_TEXT = "« bonjour 👋 »"
CLEAN_WIFI_STEPS = 4  # launch Settings, Network & internet, the Wi-Fi switch, complete


# ---------------------------------------------------------------------------------------------- helpers

def wire_router(server: FakeLLMServer, chain: Sequence[str] = ("openai",), *, timeout: float = 5.0,
                retry: RetryPolicy = RETRY, keys: KeyStore | None = None) -> ModelRouter:
    """A router whose every role uses `chain` (provider targets, first preferred) on the fake server."""
    providers = {}
    refs = []
    for target in chain:
        settings = provider_settings(server, target, timeout=timeout)
        providers[settings.name] = settings
        refs.append(ModelRef(settings.name, MODELS[target]))
    llm = LLMSettings(providers, {role: tuple(refs) for role in ROLES}, retry)
    return ModelRouter(llm, keys if keys is not None else memory_keys({name: [KEY] for name in providers}))


@dataclass
class Finished:
    result: RunResult
    events: list[Event]
    elapsed_s: float

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def logs(self, level: str | None = None) -> list[str]:
        return [e.message for e in self.of(LogLine) if level is None or e.level == level]

    def log_with(self, *words: str) -> str:
        """The one log line the user saw that has all of `words` (fails, listing the log, when none has)."""
        found = [m for m in self.logs() if all(w in m for w in words)]
        assert found, f"no log line with {words}; the log was:\n" + "\n".join(self.logs())
        return found[0]


async def run_agent(adb_server: AdbTestServer, sim: VirtualPhoneService, models: ModelRouter | None,
                    task: str = WIFI, *, timeout: float = RUN_TIMEOUT, handlers: Handlers | None = None,
                    store: RunStore | None = None, device: Any = None, **settings: Any) -> Finished:
    """The Wi-Fi task's starting state, one Orchestrator run on the virtual phone through adb, every event kept;
    the router is closed afterwards. A run longer than `timeout` fails the test as a hang."""
    TASKS_BY_ID["wifi_on"].setup(sim.phone)
    phone = device or await adb_server.server().device(sim.serial)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    recorder = RunRecorder(store) if store is not None else None
    if recorder is not None:
        recorder.attach(bus)
    agent = Orchestrator(phone, models, settings=AgentSettings(**settings), bus=bus, handlers=handlers)
    started = time.monotonic()
    try:
        result = await asyncio.wait_for(agent.run(task), timeout)
    finally:
        if models is not None:
            await models.aclose()
        if recorder is not None:
            await asyncio.wait_for(recorder.aclose(), 10)
    return Finished(result, events, time.monotonic() - started)


class CountingPhone:
    """The device, with a record of every command sent to the phone (the Phone protocol's calls)."""

    COMMANDS = ("screenshot", "dump_hierarchy", "tap", "long_press", "swipe", "press_key", "press_keys", "type_text",
                "launch_app", "installed_apps", "current_app", "keyboard_shown", "device_context")

    def __init__(self, device: Any) -> None:
        self._device = device
        self.serial = device.serial
        self.sent: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._device, name)
        if name not in self.COMMANDS:
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.sent.append(name)
            return await attr(*args, **kwargs)
        return call


class ActScript:
    """The model on the wire: the first fast-agent ("act") requests get `first`, in order; everything else (and
    later act requests) gets `then`. Records when each act request arrived. Thread-safe: the fake server
    answers on its own threads."""

    def __init__(self, *first: Reply, then: Callable[[RecordedRequest], Reply] = wifi_model) -> None:
        self._first = list(first)
        self._then = then
        self._lock = threading.Lock()
        self.act_times: list[float] = []

    def __call__(self, record: RecordedRequest) -> Reply:
        if "act" in record.tool_names():
            with self._lock:
                self.act_times.append(time.monotonic())
                if self._first:
                    return self._first.pop(0)
        return self._then(record)

    def reply(self) -> Reply:
        return Reply.from_request(self)


def act_requests(server: FakeLLMServer) -> list[RecordedRequest]:
    return [r for r in server.requests if "act" in r.tool_names()]


_LINE = re.compile(r'^(e\d+) (\w+) "([^"]*)"', re.M)


def element_id(text: str, label: str) -> str | None:
    """The id of the first element whose label contains `label` in the prompt's current screen data."""
    screen = text[text.rfind("<screen_data>"):]
    return next((m[1] for m in _LINE.finditer(screen) if label.lower() in m[3].lower()), None)


def files_containing(root: Path, secret: str) -> list[Path]:
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@contextlib.contextmanager
def os_keyring(backend: Any) -> Iterator[None]:
    """keyring's process-wide backend set to `backend` (what KeyStore() reads), restored afterwards."""
    saved = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield
    finally:
        keyring.set_keyring(saved)


@pytest.fixture
def cli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> Path:
    """`relay-desktop` in-process with its history, settings and HOME in a temporary folder, the private adb server
    (ANDROID_ADB_SERVER_PORT, set by that fixture) and the virtual phone's own scrcpy server (no download)."""
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path / "relay"))
    (tmp_path / "home").mkdir()
    for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "home"))
    server = tmp_path / "scrcpy-server"
    server.write_bytes(b"scrcpy server stand-in")
    monkeypatch.setenv("SCRCPY_SERVER_PATH", str(server))
    monkeypatch.setenv("SCRCPY_SERVER_VERSION", "3.3.4")
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


async def cli(*argv: str, timeout: float = RUN_TIMEOUT) -> int:
    """`relay-desktop ARGV` on this test's event loop, bounded by `timeout`."""
    install_redaction()
    args = build_parser().parse_args(list(argv))
    return await asyncio.wait_for(args.handler(args), timeout)


# ---------------------------------------------------------------------------------------------- 1. rate limits

async def test_rate_limit_with_retry_after_is_waited_out_then_the_run_succeeds(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """LLM 429 with `retry-after: 1` on the first step: the router waits that long (1 s plus under 0.1 s of jitter,
    not its own backoff), the user sees a warning that the model is rate limited and when it retries, and the
    run then completes the task with the model."""
    script = ActScript(Reply.error(429, retry_after=1))
    fake_llm.default = script.reply()
    run = await run_agent(adb_server, sim, wire_router(fake_llm))

    assert run.result.outcome == "success", run.result.reason
    assert TASKS_BY_ID["wifi_on"].check(sim.phone).ok
    waited = script.act_times[1] - script.act_times[0]
    assert 1.0 <= waited < 2.5, waited
    line = run.log_with("openai/gpt-4.1-mini", "rate limited", "retrying in 1.")
    assert "retry 1 of 1" in line
    assert all(e.source == "model" for e in run.of(PlanReceived))  # the model, not the fallback planner, drove


async def test_a_retry_after_longer_than_the_limit_is_not_waited_out(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """LLM 429 asking to wait an hour: nothing waits that long. The call fails at once with a message that
    gives the wait in plain seconds, and the rule-based fallback planner finishes the task."""
    fake_llm.default = Reply.error(429, retry_after=3600)
    run = await run_agent(adb_server, sim, wire_router(fake_llm), timeout=10, allow_fallback=True)

    assert run.result.outcome == "success", run.result.reason
    assert run.elapsed_s < 8
    line = run.log_with("Every model failed", "rate limiting")
    assert "the server asks to wait 3,600 s" in line and "fallback planner takes over" in line
    assert {e.source for e in run.of(PlanReceived)} == {"fallback"}


# ---------------------------------------------------------------------------------------------- 2. server errors

async def test_server_errors_are_retried_then_the_next_provider_answers(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """LLM 500 from the first provider: each call is retried (max_attempts, no more), then the next provider in
    the chain answers; the user sees the retry and the switch; the run succeeds with the second provider."""
    fake_llm.default = Reply.from_request(
        lambda r: Reply.error(500) if r.provider == "openai" else wifi_model(r))
    run = await run_agent(adb_server, sim, wire_router(fake_llm, ("openai", "anthropic")))

    assert run.result.outcome == "success", run.result.reason
    assert {e.model for e in run.of(PlanReceived)} == {"anthropic/claude-haiku-4-5"}
    run.log_with("openai/gpt-4.1-mini: server error; retrying in")
    run.log_with("openai/gpt-4.1-mini failed (server error); trying anthropic/claude-haiku-4-5")
    openai_calls = sum(r.provider == "openai" for r in fake_llm.requests)
    anthropic_calls = sum(r.provider == "anthropic" for r in fake_llm.requests)
    # Every call: max_attempts tries on openai, then anthropic (a background check cut short by the run's end
    # may have tried openai without reaching anthropic yet).
    assert anthropic_calls >= CLEAN_WIFI_STEPS
    assert RETRY.max_attempts * anthropic_calls <= openai_calls <= RETRY.max_attempts * (anthropic_calls + 2)


async def test_server_errors_everywhere_hand_the_run_to_the_fallback_planner(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """LLM 500 from every model: retried, then a clear warning naming the error, and the rule-based planner
    finishes the run; no model is asked anything more once it has taken over (no retry storm)."""
    fake_llm.default = Reply.error(500)
    run = await run_agent(adb_server, sim, wire_router(fake_llm), timeout=10, allow_fallback=True)

    assert run.result.outcome == "success", run.result.reason
    line = run.log_with("Every model failed")
    assert "openai had a server error (HTTP 500)" in line and "fallback planner takes over" in line
    assert {e.source for e in run.of(PlanReceived)} == {"fallback"}
    # The first step's call and the initial planning call, each tried max_attempts times; nothing after.
    assert len(fake_llm.requests) <= 2 * RETRY.max_attempts


# ---------------------------------------------------------------------------------------------- 3. timeouts

async def test_a_model_that_never_answers_is_bounded_by_the_timeout(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """The model never answers: each call gives up after the configured 1 s timeout (2 attempts), the user is
    told the provider did not answer within 1 s, the fallback planner takes over and completes the run; the
    whole run stays within a few timeouts, and every abandoned HTTP request was closed."""
    fake_llm.default = Reply.hang()
    run = await run_agent(adb_server, sim, wire_router(fake_llm, timeout=1.0), timeout=10, allow_fallback=True)

    assert run.result.outcome == "success", run.result.reason
    assert run.elapsed_s < 2 * 1.0 + 2.5, run.elapsed_s
    line = run.log_with("Every model failed")
    assert "openai did not answer within 1 s" in line
    run.log_with("openai/gpt-4.1-mini: timeout; retrying in")
    assert {e.source for e in run.of(PlanReceived)} == {"fallback"}
    await fake_llm.await_disconnects(len(fake_llm.requests), timeout=5)


# ---------------------------------------------------------------------------------------------- 4. garbage output

async def test_garbage_answers_are_re_asked_then_counted_and_the_run_continues(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """Not JSON, then the wrong schema: each answer is shown its problem and asked again once; when the repair is
    wrong too, the step counts as an error with a warning saying why, the model is told, and the run continues
    and succeeds with the next good answer."""
    prose = Reply.text("Sure! I'd love to help you with your phone today.")
    wrong = Reply.tool_call("act", {"thinking": "fly", "steps": [{"action": "fly", "to": "Settings"}]})
    script = ActScript(prose, prose, wrong, wrong)
    fake_llm.default = script.reply()
    run = await run_agent(adb_server, sim, wire_router(fake_llm))

    assert run.result.outcome == "success", run.result.reason
    assert run.result.steps == CLEAN_WIFI_STEPS + 2  # two steps spent on unusable answers, then the usual path
    unusable = [m for m in run.logs("warning") if m.startswith("The model's answer could not be used")]
    assert len(unusable) == 2, run.logs()
    assert all("did not answer in the required shape, even when shown its error" in m for m in unusable)
    assert "'fly'" in unusable[1]
    run.log_with("answered in the wrong shape", "asking it to correct itself")
    acts = act_requests(fake_llm)
    # Re-asked: the repair request shows the problem; the next step's request says the last answer was unusable.
    assert "Your answer was rejected because it does not match the required schema" in acts[1].last_text()
    assert any("Your last answer could not be used" in t for t in acts[2].texts())


async def test_garbage_forever_fails_the_run_after_the_error_limit(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """A model that only ever answers prose: bounded — the run fails after 5 unusable answers in a row (one repair
    each, so 10 fast-agent calls), with that reason."""
    fake_llm.default = ActScript(then=lambda r: Reply.text("I cannot see a phone.") if "act" in r.tool_names()
                                 else wifi_model(r)).reply()
    run = await run_agent(adb_server, sim, wire_router(fake_llm), timeout=15)

    assert run.result.outcome == "failed"
    assert run.result.reason == "5 errors in a row; the last: no usable plan"
    assert len(act_requests(fake_llm)) == 10


# ---------------------------------------------------------------------------------------------- 5. unknown element

async def test_an_unknown_element_id_fails_the_step_listing_the_ids_on_screen_and_the_run_recovers(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """A tap on e999, which is not on the screen: a failed step whose message lists the element ids that are
    there; nothing is tapped; the model is told, and the run recovers and completes."""
    script = ActScript(Reply.tool_call("act", {"thinking": "tap it", "steps": [{"action": "tap", "element": "e999"}]}))
    fake_llm.default = script.reply()
    device = CountingPhone(await adb_server.server().device(sim.serial))
    run = await run_agent(adb_server, sim, wire_router(fake_llm), device=device)

    assert run.result.outcome == "success", run.result.reason
    assert run.result.steps == CLEAN_WIFI_STEPS + 1  # one step lost to the bad id, then the usual path
    line = run.log_with("Step failed: tap e999")
    listed = re.search(r"element e999 is not on the current screen \(interactive elements: ([^)]*)\)", line)
    assert listed, line
    ids = listed[1].rstrip(" …").split(", ")
    assert ids and all(re.fullmatch(r"e\d+", i) for i in ids)
    first_prompt = act_requests(fake_llm)[0].last_text()
    screen = first_prompt[first_prompt.rfind("<screen_data>"):]
    # The ids the model was shown: on lines of their own, or on the navigation bar's line (uiautomator2's dump).
    assert all(re.search(rf"^{i} |navigation bar: .*\b{i} ", screen, re.M) for i in ids), screen
    assert not [a for a in run.of(ActionResult) if a.action.params.get("element") == "e999"]  # never tapped
    told = act_requests(fake_llm)[1]
    assert any("1. tap e999 → FAILED: element e999 is not on the current screen" in t for t in told.texts())


# ---------------------------------------------------------------------------------------------- 6. never complete

async def test_a_model_that_never_says_complete_ends_at_max_steps(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer) -> None:
    """A model that keeps acting and never says complete: the run ends after max_steps with outcome max_steps
    and a reason that says so."""
    wander = {"thinking": "look around", "steps": [{"action": "scroll", "direction": "down"}]}
    fake_llm.default = ActScript(then=lambda r: Reply.tool_call("act", wander) if "act" in r.tool_names()
                                 else wifi_model(r)).reply()
    run = await run_agent(adb_server, sim, wire_router(fake_llm), max_steps=4, timeout=15)

    assert run.result.outcome == "max_steps"
    assert run.result.reason.startswith("the task was not finished in 4 steps")
    assert run.result.steps == 4
    finished = run.of(RunFinished)
    assert len(finished) == 1 and finished[0].outcome == "max_steps"


# ---------------------------------------------------------------------------------------------- 7. invalid key

@pytest.mark.parametrize("target", ["anthropic", "openai", "gemini"])
async def test_an_invalid_key_is_named_plainly_once_and_never_shown(
        target: str, cli_home: Path, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`relay-desktop run --provider P` with a key P refuses: the run ends with an error naming the model and
    "P rejected the API key" (never a "success" the chosen model did not earn), one request per role at most
    (no retry storm), and the key appears nowhere: not on the terminal, not in the run history."""
    env = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}[target]
    monkeypatch.setenv(env, BAD_KEY)
    fake_llm.valid_keys = {"the-only-good-key"}
    kind = "openai" if target == "openai" else target
    with os_keyring(keyring.backends.fail.Keyring()):
        code = await cli("run", WIFI, "--sim", "--no-mirror", "--provider", target,
                         "--base-url", fake_llm.base_url_for(kind))
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert f"could not be used: {target} rejected the API key (invalid, revoked or for another provider)" in out
    assert "✔ success" not in out and f"the model {target}/" in out
    assert len(fake_llm.requests) <= len(ROLES)
    assert all(r.answered_with == "invalid_key" for r in fake_llm.requests)
    assert BAD_KEY not in out + err
    assert files_containing(cli_home, BAD_KEY) == []


# ---------------------------------------------------------------------------------------------- 8. keyring

def _assert_no_key_file(home: Path, secret: str) -> None:
    assert files_containing(home, secret) == []
    plain = [p for p in home.rglob("*") if p.name in ("keyring_pass.cfg", "crypted_pass.cfg")]
    assert plain == []


async def test_a_locked_keyring_is_explained_and_session_keys_still_work(
        locked_secret_service: keyring.backends.SecretService.Keyring, cli_home: Path,
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A locked keyring: `relay-desktop run` says the keyring is locked and offers environment variables or
    session-only keys, and the fallback planner runs; saving a key is refused with the same advice (nothing is
    written anywhere); a key for this session only drives a real run; no file holds the key."""
    with os_keyring(locked_secret_service):
        code = await cli("run", WIFI, "--sim", "--no-mirror")
    out = capsys.readouterr().out
    assert code == 0, out
    models_line = next(line for line in out.splitlines() if line.startswith("Models: "))
    assert "rule-based fallback planner (no API key found: The keyring (keyring.backends.SecretService.Keyring) " \
           "is locked." in models_line
    assert "use environment variables or keys for this session only" in models_line
    assert "OPENAI_API_KEY" in models_line

    store = KeyStore(locked_secret_service, environ={})
    with pytest.raises(keyring.errors.KeyringError, match="could not store the openai keys: KeyringLocked"):
        await store.asave("openai", [KEY])
    no_key = await store.amissing_key_error("openai")
    assert str(no_key).startswith("No API key for openai: add one in Settings, or set OPENAI_API_KEY. The keyring")
    assert "is locked" in str(no_key) and "keys for this session only" in str(no_key)

    store.set_session_keys("openai", [KEY])
    fake_llm.default = Reply.from_request(wifi_model)
    run = await run_agent(adb_server, sim, wire_router(fake_llm, keys=store),
                          store=RunStore(cli_home / "relay" / "data" / "runs"))
    assert run.result.outcome == "success", run.result.reason
    assert {r.key() for r in fake_llm.requests} == {KEY}
    _assert_no_key_file(cli_home, KEY)


@pytest.mark.parametrize("backend", [keyring.backends.fail.Keyring(), keyring.backends.null.Keyring()],
                         ids=["fail", "null"])
async def test_no_keyring_at_all_is_explained_and_nothing_is_written(
        backend: keyring.backend.KeyringBackend, cli_home: Path, fake_llm: FakeLLMServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    """No keyring backend (keyring's fail or null backend): asking for a provider gives a clear "no key" message
    that says there is no keyring and offers environment variables or session-only keys; the run is not lost
    (allowed to, the fallback planner finishes it); no request reaches the provider; no file is written with a
    key."""
    with os_keyring(backend):
        code = await cli("run", WIFI, "--sim", "--no-mirror", "--provider", "openai",
                         "--base-url", fake_llm.base_url_for("openai"), "--allow-fallback")
        with pytest.raises(keyring.errors.KeyringError, match="No keyring backend is available"):
            KeyStore().save("openai", [KEY])
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(line for line in out.splitlines() if "Every model failed" in line)
    assert "No API key for openai: add one in Settings, or set OPENAI_API_KEY." in line
    assert "No keyring backend is available" in line and "keys for this session only" in line
    assert "✔ success" in out
    assert fake_llm.requests == []
    _assert_no_key_file(cli_home, KEY)


# ---------------------------------------------------------------------------------------------- 9. SIGKILL

def _committed_steps(db: Path) -> list[int]:
    if not db.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as conn:
            return [row[0] for row in conn.execute("SELECT step FROM steps ORDER BY step")]
    except sqlite3.Error:  # the schema is not there yet
        return []


async def test_the_app_killed_mid_run_leaves_a_readable_history_with_the_run_interrupted(
        cli_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`relay-desktop run` SIGKILLed during step 3 (after step 2 was committed): the history opens, the run is
    listed as interrupted ("the app stopped before the run finished"), steps 1 and 2 are there with their
    screenshots and element maps (at most the step in progress is lost), and the database is intact."""
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    db = cli_home / "relay" / "data" / "runs" / "runs.sqlite3"
    with open(cli_home / "run.out", "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "relay_desktop", "run", WIFI, "--sim", "--fallback", "--no-mirror",
             "--pace", "1.0", "--json"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 20
        while 2 not in _committed_steps(db):
            assert process.poll() is None, (cli_home / "run.out").read_text()
            assert time.monotonic() < deadline, "step 2 was never committed:\n" + (cli_home / "run.out").read_text()
            await asyncio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    output = (cli_home / "run.out").read_text()
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert "run_finished" not in {e["event"] for e in events}
    assert max(e["step"] for e in events if e["event"] == "step_started") == 3  # killed during step 3

    store = RunStore(db.parent)
    try:
        [summary] = store.list_runs()
        assert (summary.outcome, summary.reason) == ("interrupted", "the app stopped before the run finished")
        assert summary.task == WIFI and summary.steps == 2
        record = store.get_run(summary.id)
        assert [s.step for s in record.steps] == [1, 2]
        for step in record.steps:
            path = store.screenshot_path(step)
            assert path is not None and path.read_bytes()[:2] == b"\xff\xd8"
            assert step.element_map and step.plan and step.actions
        with contextlib.closing(sqlite3.connect(db)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        store.close()
    assert await cli("runs", "list", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["outcome"] == "interrupted"


# ---------------------------------------------------------------------------------------------- 10. disk full

async def test_a_full_disk_tells_the_user_and_the_run_goes_on(
        cli_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The run store's disk is full (every step write fails with ENOSPC): the run carries on and completes the task;
    the user is told during the run, at the first failed write, that history is not being saved, and again in
    the summary at the end."""
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(RunStore, "save_step", full)
    with os_keyring(keyring.backends.fail.Keyring()):
        code = await cli("run", WIFI, "--sim", "--no-mirror", "--fallback")
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    told = next(i for i, line in enumerate(lines) if "Run history is not being saved from now on" in line)
    assert "No space left on device" in lines[told] and "the run goes on" in lines[told]
    finished = next(i for i, line in enumerate(lines) if line.startswith("✔ success"))
    assert told < finished  # told while the run was still going
    assert "History not saved: OSError: [Errno 28] No space left on device" in out
    assert "Virtual phone check: passed" in out


# ---------------------------------------------------------------------------------------------- 11. task text

@pytest.mark.parametrize(("task", "reason"), [
    ("", "the task is empty: say what the agent should do on the phone"),
    ("  \n\t ", "the task is empty: say what the agent should do on the phone"),
    ("x" * 100_000, f"the task is 100,000 characters long; the limit is {MAX_TASK_CHARS:,}. Describe what to do "
                    "in a few sentences."),
], ids=["empty", "blank", "huge"])
async def test_an_empty_or_huge_task_is_refused_with_a_clear_reason(
        task: str, reason: str, adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer,
        tmp_path: Path) -> None:
    """An empty (or blank) task and a 100,000-character one are refused before anything happens: outcome error with
    a reason that says why (and the limit), no model call, no command to the phone; the refusal is in history,
    with the huge task cut to the limit."""
    fake_llm.default = Reply.from_request(wifi_model)
    device = CountingPhone(await adb_server.server().device(sim.serial))
    store = RunStore(tmp_path)
    run = await run_agent(adb_server, sim, wire_router(fake_llm), task, device=device, store=store, timeout=5)

    assert (run.result.outcome, run.result.reason) == ("error", reason)
    assert run.result.steps == 0 and fake_llm.requests == [] and device.sent == []
    [summary] = store.list_runs()
    assert (summary.outcome, summary.reason) == ("error", reason)
    assert len(summary.task) == min(len(task.strip()), MAX_TASK_CHARS)
    store.close()


def messages_model(record: RecordedRequest) -> Reply:
    """A model on the wire that texts Bob the non-ASCII message: open Messages, Bob's conversation, type, send."""
    name = (record.tool_names() or ["act"])[0]
    if name == "plan_strategy":
        return Reply.tool_call(name, PLAN)
    if name == "completion":
        return Reply.tool_call(name, {"done": True, "reason": "the message shows as sent"})
    if name != "act":
        return wifi_model(record)
    text = record.last_text()
    screen = text[text.rfind("<screen_data>"):]
    steps: list[dict[str, Any]]
    if f"App in front: {MESSAGES}" not in text:
        steps = [{"action": "launch_app", "app": "Messages"}]
    elif NON_ASCII_TEXT in screen:
        steps = [{"action": "complete", "summary": f"sent {NON_ASCII_TEXT} to Bob"}]
    elif (field := element_id(text, "Text message")) and (send := element_id(text, "Send SMS")):
        steps = [{"action": "type", "element": field, "text": NON_ASCII_TEXT}, {"action": "tap", "element": send}]
    elif bob := element_id(text, "Bob Martinez"):
        steps = [{"action": "tap", "element": bob}]
    else:
        steps = [{"action": "back"}]
    return Reply.tool_call("act", {"thinking": "texting Bob", "steps": steps})


async def test_a_non_ascii_task_runs_and_is_sent_stored_and_exported_intact(
        cli_home: Path, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`relay-desktop run "Envoie « bonjour 👋 » à Bob"` with a model: the task reaches the model intact, the
    message is typed (through the mirror) and sent to Bob exactly, and the task is intact on the terminal, in
    the history (list and show) and in the HTML export."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake_llm.default = Reply.from_request(messages_model)
    with os_keyring(keyring.backends.fail.Keyring()):
        code = await cli("run", NON_ASCII_TASK, "--sim", "--yes", "--provider", "openai",
                         "--base-url", fake_llm.base_url_for("openai"), "--max-steps", "8")
    out = capsys.readouterr().out
    assert code == 0, out
    assert f'"{NON_ASCII_TASK}"' in out and "✔ success" in out
    assert any(NON_ASCII_TASK in r.last_text() for r in act_requests(fake_llm))
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]

    assert await cli("runs", "list", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["id"] == run_id and listed[0]["task"] == NON_ASCII_TASK and listed[0]["outcome"] == "success"
    assert await cli("runs", "show", run_id) == 0
    assert f"{run_id}: {NON_ASCII_TASK}" in capsys.readouterr().out
    report = cli_home / "report.html"
    assert await cli("runs", "export", run_id, "-o", str(report)) == 0
    assert f"<h1>{NON_ASCII_TASK}</h1>" in report.read_text(encoding="utf-8")
    store = RunStore(cli_home / "relay" / "data" / "runs")
    steps = store.get_run(run_id).steps
    store.close()
    typed = [a for step in steps for a in step.actions if a["action"]["action"] == "type"]
    assert typed and typed[0]["action"]["text"] == NON_ASCII_TEXT and typed[0]["ok"] is True
    # The phone's own screen, read back over adb after sending: Bob's conversation shows the text exactly.
    last = steps[-1].element_map
    assert last is not None and any(e["text"] == NON_ASCII_TEXT for e in last["elements"])

