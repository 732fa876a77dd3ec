"""Saved secrets: kept in the real OS keyring (or the environment), listed by name only, typed by the agent with
type(secret=NAME) — and a whole run with one typed leaves its value in no prompt, log line or history file."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest

from relay_desktop.agent.events import EventBus, LogLine
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings, RunResult
from relay_desktop.cli import main
from relay_desktop.llm.config import LLMSettings, ModelRef
from relay_desktop.llm.redaction import redact
from relay_desktop.llm.router import ModelRouter
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.user_secrets import SERVICE, SecretError, SecretStore
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.llm_fixtures import KEY, MODELS, memory_keys, provider_settings

DOOR = "4711"          # short, as a PIN is: masked as a word, not everywhere digits meet


@pytest.fixture
def keyring_secrets(secret_service: Any) -> Iterator[Any]:
    """The real Secret Service, with this test's secrets removed afterwards."""
    yield secret_service
    store = SecretStore(secret_service, environ={})
    for secret in store.names():
        store.delete(secret.name)


def test_secrets_are_saved_in_the_keyring_listed_by_name_and_deleted(keyring_secrets: Any) -> None:
    store = SecretStore(keyring_secrets, environ={"RELAY_SECRET_WIFI_GUEST": "sunflower42", "HOME": "/x"})
    store.set("bank_pin", "2468")
    store.set("door_code", DOOR)
    assert [(n.name, n.source) for n in store.names()] == [
        ("bank_pin", "keyring"), ("door_code", "keyring"), ("wifi_guest", "RELAY_SECRET_WIFI_GUEST")]
    pin = store.get("bank_pin")
    assert pin is not None and pin.reveal() == "2468" and "2468" not in repr(pin) and "2468" not in str(pin)
    assert store.get("wifi_guest").reveal() == "sunflower42"
    assert keyring_secrets.get_password(SERVICE, "door_code") == DOOR
    assert redact(f"the door code is {DOOR}, not 14711") == "the door code is [REDACTED], not 14711"
    store.delete("door_code")
    assert store.get("door_code") is None and [n.name for n in store.names()] == ["bank_pin", "wifi_guest"]
    with pytest.raises(SecretError, match="no secret called door_code is saved"):
        store.delete("door_code")
    with pytest.raises(SecretError, match="cannot be a secret's name"):
        store.set("Bank PIN", "1")


def test_without_a_keyring_secrets_come_from_the_environment_and_saving_says_why_not() -> None:
    store = SecretStore(keyring.backends.fail.Keyring(), environ={"RELAY_SECRET_BANK_PIN": "8642"})
    assert [n.name for n in store.names()] == ["bank_pin"] and store.get("bank_pin").reveal() == "8642"
    with pytest.raises(SecretError, match="RELAY_SECRET_NAME=value"):
        store.set("other", "1234")


def test_the_command_line_saves_lists_and_deletes_without_ever_printing_a_value(
        keyring_secrets: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The command looks the keyring up as the app does (keyring.get_keyring(), chosen once per process, perhaps
    # before this test's private Secret Service was running): point it at that one.
    saved = keyring.get_keyring()
    keyring.set_keyring(keyring_secrets)
    monkeypatch.setattr("sys.stdin", io.StringIO("9753\n"))
    try:
        _save_list_and_delete(capsys)
    finally:
        keyring.set_keyring(saved)


def _save_list_and_delete(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["secrets", "set", "bank_pin"]) == 0
    assert main(["secrets", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out.splitlines()[-1]) == [{"name": "bank_pin", "source": "keyring"}]
    assert "9753" not in out
    assert main(["secrets", "delete", "bank_pin"]) == 0
    assert main(["secrets", "delete", "bank_pin"]) == 1
    assert "no secret called bank_pin" in capsys.readouterr().err


def _ids(text: str, label: str, role: str | None = None) -> str | None:
    screen = text[text.rfind("<screen_data>"):]
    for match in re.finditer(r'^(e\d+) (\w+) "([^"]*)"', screen, re.M):
        if label.lower() in match.group(3).lower() and (role is None or match.group(2) == role):
            return match.group(1)
    return None


def door_model(record: RecordedRequest) -> Reply:
    """Opens Bob's conversation and types the saved door code into the message field (and does not send)."""
    name = (record.tool_names() or ["act"])[0]
    text = record.last_text()
    if name != "act":
        answers = {"plan_strategy": {"approaches": [{"name": "Messages", "description": "type it", "steps": ["type"],
                                                     "confidence": 0.9}], "recommended_index": 0},
                   "completion": {"done": True, "reason": "typed"}, "progress": {"progressing": True, "reason": "ok"}}
        return Reply.tool_call(name, answers.get(name, {"notes": []}))
    if "App in front: com.google.android.apps.messaging" not in text:
        step: dict[str, Any] = {"action": "launch_app", "app": "Messages"}
    elif (field := _ids(text, "Text message", "field")) is not None:
        step = {"action": "complete", "summary": "typed"} if "[REDACTED]" in text else \
            {"action": "type", "element": field, "secret": "door_code"}
    else:
        step = {"action": "tap", "element": _ids(text, "Bob Martinez")}
    return Reply.tool_call("act", {"thinking": "next", "steps": [step]})


async def run_with_secret(adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer,
                          store: RunStore, model: Callable[[RecordedRequest], Reply], task: str,
                          environ: dict[str, str]) -> tuple[RunResult, list[Any]]:
    """The agent on the virtual phone through Google's adb, every role answered by ``model`` on the fake server,
    the saved secrets those of ``environ`` (no keyring), the run recorded into ``store``: (result, events)."""
    fake_llm.default = Reply.from_request(model)
    provider = provider_settings(fake_llm, "openai", timeout=10)
    ref = ModelRef(provider.name, MODELS["openai"])
    router = ModelRouter(LLMSettings({provider.name: provider}, {"fast": (ref,), "planning": (ref,),
                                                                 "verifier": (ref,)}),
                         memory_keys({provider.name: [KEY]}))
    secrets = SecretStore(keyring.backends.fail.Keyring(), environ=environ)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    recorder = RunRecorder(store)
    recorder.attach(bus)
    device = await adb_server.server().device(sim.serial)
    try:
        result = await asyncio.wait_for(Orchestrator(device, router, bus=bus, secrets=secrets,
                                                     settings=AgentSettings(max_steps=8)).run(task), 90)
    finally:
        await router.aclose()
        await device.close()
        await recorder.aclose()
    return result, events


async def test_a_run_types_a_secret_whose_value_no_prompt_log_or_history_holds(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    TASKS_BY_ID["messages_text_bob"].setup(sim.phone)
    result, events = await run_with_secret(adb_server, sim, fake_llm, RunStore(tmp_path / "runs"), door_model,
                                           "Type my door code into Bob's chat", {"RELAY_SECRET_DOOR_CODE": DOOR})
    assert result.outcome == "success", result.reason
    thread = sim.phone.current_activity()
    assert DOOR in json.dumps(thread.state, default=str)            # the phone got the value …
    requests = [text for r in fake_llm.requests for text in (r.system_text(), *r.texts())]
    assert any("door_code" in t for t in requests)                  # … the model only its name
    assert not any(re.search(rf"(?<!\w){DOOR}(?!\w)", t) for t in requests)
    assert any("[REDACTED]" in t for t in requests)                 # the field that shows it is masked
    assert not any(DOOR in e.message for e in events if isinstance(e, LogLine))
    for path in (tmp_path / "runs").rglob("*"):
        if path.is_file():
            assert DOOR.encode() not in path.read_bytes(), path
