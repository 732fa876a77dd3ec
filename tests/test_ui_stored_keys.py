"""Keys stored for each provider, as Settings shows them (masked, never whole) and removes them, and as the next
run uses them — without a restart. A real Secret Service (tests/keyring_fixtures.py), real widgets, the virtual
phone behind Google's adb, and a fake provider on the wire that knows which key is good."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
import pytest
import qasync
from pytestqt.qtbot import QtBot

from relay_desktop.agent.events import RunFinished
from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.config import LLMSettings
from relay_desktop.llm.keys import ApiKey, KeyStore
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.ui.main_window import NO_KEY, MainWindow
from relay_desktop.ui.settings_dialog import SettingsDialog
from relay_desktop.ui.stored_keys import masked
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import provider_settings
from tests.test_agent_e2e import wifi_model
from tests.waiting import until

GOOD = "sk-test-GOOD-0123456789ab7f3a"
BAD = "sk-test-BAD-000000000000c0de"


def test_a_key_is_shown_masked_never_whole() -> None:
    assert masked(ApiKey("openai", "sk-proj-abcdefghijklmnop7f3a", "keyring")) == "sk-…7f3a"
    assert masked(ApiKey("gemini", "AIzaSyAbcdefghijklmnopqrst91bc", "keyring")) == "AIza…91bc"
    assert masked(ApiKey("openai", "short", "keyring")) == "…"          # too short to show any of it


def test_settings_lists_the_stored_keys_masked_and_removes_them_from_the_keyring(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        secret_service: keyring.backends.SecretService.Keyring, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    KeyStore(backend=secret_service, environ={}).save("openai", [GOOD])
    keys = KeyStore(backend=secret_service, environ={"GEMINI_API_KEY": "AIzaFromTheEnvironment0000e1e1"})
    changed: list[bool] = []

    async def scenario() -> None:
        dialog = SettingsDialog(AppSettings(), keys)       # opened while the loop runs, as the window opens it
        qtbot.addWidget(dialog)
        dialog.keys_changed.connect(lambda: changed.append(True))
        dialog.show()
        await until(lambda: "sk-…7f3a" in dialog.stored["openai"].text(), 10)
        assert GOOD not in dialog.stored["openai"].text() and GOOD not in dialog.stored["openai"].toolTip()
        assert dialog.remove_buttons["openai"].isEnabled()
        assert dialog.stored["anthropic"].text() == "No key saved"
        assert not dialog.remove_buttons["anthropic"].isEnabled()
        # A key from the environment is shown, but is not the keyring's to remove.
        assert "GEMINI_API_KEY" in dialog.stored["gemini"].text() and not dialog.remove_buttons["gemini"].isEnabled()
        dialog.remove_buttons["openai"].click()
        await until(lambda: dialog.stored["openai"].text() == "No key saved", 10)
        assert not dialog.remove_buttons["openai"].isEnabled() and changed

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))
    assert KeyStore(backend=secret_service, environ={}).keys("openai") == []
    assert GOOD not in caplog.text


def test_a_key_added_or_removed_takes_effect_for_the_next_run_without_a_restart(
        window: MainWindow, qt_loop: qasync.QEventLoop, fake_llm: FakeLLMServer,
        secret_service: keyring.backends.SecretService.Keyring) -> None:
    """A wrong key failed every run, and went on failing after the keyring held the right one, until a restart;
    a key removed in Settings was still used."""
    fake_llm.valid_keys = {GOOD}
    fake_llm.default = Reply.from_request(wifi_model)
    outside = KeyStore(backend=secret_service, environ={})       # the same keyring, written from elsewhere
    outside.save("openai", [BAD])
    window.keys = KeyStore(backend=secret_service, environ={})
    llm = LLMSettings.for_providers("openai").with_provider(provider_settings(fake_llm, "openai", timeout=10))
    window.app_settings = AppSettings(llm=llm)
    finished: list[RunFinished] = []

    async def run() -> RunFinished:
        TASKS_BY_ID["wifi_on"].setup(window.session.service.phone)
        count = len(finished)
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        await until(lambda: len(finished) > count, 60)
        await until(lambda: not window.session.running, 10)
        return finished[-1]

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
        window.settings = window.app_settings.agent_settings(pace_s=0.0)
        await window.choose_models()
        assert window.models is not None
        first = await run()
        assert first.outcome != "success"                           # the wrong key
        outside.save("openai", [GOOD])                               # put right, without the window knowing
        calls = len(fake_llm.requests)
        second = await run()
        assert second.outcome == "success", second.reason
        assert {r.key() for r in fake_llm.requests[calls:]} == {GOOD}
        # Removed in Settings (the dialog then cancelled): the next run has no key to use.
        dialog = window.open_settings()
        await until(lambda: dialog.remove_buttons["openai"].isEnabled(), 10)
        dialog.remove_buttons["openai"].click()
        await until(lambda: window.key_notice.isVisibleTo(window), 10)
        dialog.reject()
        assert window.models is None and window.key_notice.text() == NO_KEY
        calls = len(fake_llm.requests)
        third = await run()
        assert third.outcome == "success", third.reason              # the rule-based planner, as with no key
        assert len(fake_llm.requests) == calls
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 150))
