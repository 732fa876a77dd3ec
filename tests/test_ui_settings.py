"""Settings in the window: keys into a real Secret Service and never into a file, Test per provider, the rest saved."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
import pytest
import qasync
from pytestqt.qtbot import QtBot

from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.config import LLMSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.ui.main_window import NO_KEY, MainWindow
from relay_desktop.ui.settings_dialog import SettingsDialog
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import provider_settings

KEY = "sk-test-SETTINGS-0123456789abcdef"




def test_a_key_goes_to_the_keyring_and_nowhere_else(qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     secret_service: keyring.backends.SecretService.Keyring) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    keys = KeyStore(backend=secret_service, environ={})
    dialog = SettingsDialog(AppSettings(), keys)
    qtbot.addWidget(dialog)

    async def scenario() -> None:
        await dialog.show_keyring_status()
        assert "system's keyring" in dialog.keyring_status.text()
        dialog.key_fields["openai"].setText(KEY)
        dialog.role_fields["fast"].setText("openai/gpt-4.1-mini")
        dialog.max_steps.setValue(33)
        saved = await dialog.save()
        assert saved is not None and saved.max_steps == 33

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))
    assert [k.reveal() for k in KeyStore(backend=secret_service, environ={}).keys("openai")] == [KEY]
    assert AppSettings.load().max_steps == 33
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert dialog.key_fields["openai"].text() == ""                 # not left on screen either


def test_without_a_keyring_keys_stay_in_this_session(qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    keys = KeyStore(backend=keyring.backends.fail.Keyring(), environ={})
    dialog = SettingsDialog(AppSettings(), keys)
    qtbot.addWidget(dialog)

    async def scenario() -> None:
        await dialog.show_keyring_status()
        assert "environment variables" in dialog.keyring_status.text()
        assert dialog.session_only.isChecked() and not dialog.session_only.isEnabled()
        dialog.key_fields["anthropic"].setText(KEY)
        assert await dialog.save() is not None

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))
    assert [k.reveal() for k in keys.keys("anthropic")] == [KEY]
    assert all(KEY.encode() not in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())


def test_the_test_button_says_plainly_what_happened(qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLMServer) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    fake_llm.valid_keys = {KEY}
    fake_llm.default = Reply.text("ok")
    llm = LLMSettings.for_providers("openai").with_provider(provider_settings(fake_llm, "openai"))
    dialog = SettingsDialog(AppSettings(llm=llm), KeyStore(backend=keyring.backends.fail.Keyring(), environ={}))
    qtbot.addWidget(dialog)

    async def scenario() -> None:
        dialog.show()
        dialog.key_fields["openai"].setText("sk-wrong-key-000000000000")
        await dialog.test("openai")
        result = dialog.results["openai"]
        assert result.text().startswith("✘ invalid key")
        await asyncio.sleep(0.1)                       # laid out: the whole message shows, none of it cut
        assert result.isVisible()
        hint = result.sizeHint()
        assert result.height() >= hint.height() and result.width() >= hint.width(), (result.size(), hint)
        assert "keyring.backends" not in dialog.keyring_status.text()
        dialog.key_fields["openai"].setText(KEY)
        await dialog.test("openai")
        assert dialog.results["openai"].text().startswith("✔ ok")

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


def test_bad_model_text_is_refused_in_words(qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    dialog = SettingsDialog(AppSettings(), KeyStore(backend=keyring.backends.fail.Keyring(), environ={}))
    qtbot.addWidget(dialog)
    dialog.role_fields["planning"].setText("just-a-model-name")
    assert qt_loop.run_until_complete(dialog.save()) is None
    assert "must be written provider/model" in dialog.error.text()
    dialog.role_fields["planning"].setText("local/qwen2.5")
    assert qt_loop.run_until_complete(dialog.save()) is None
    assert "needs the compatible server's URL" in dialog.error.text()


def test_a_key_for_another_provider_than_the_models_use_is_said_not_no_key_yet(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def saved_key(provider: str) -> None:
        dialog = window.open_settings()
        for _ in range(100):                                   # the keyring check has run
            if dialog.session_only.isChecked():
                break
            await asyncio.sleep(0.05)
        dialog.key_fields[provider].setText("sk-test-1234567890abcdef")
        assert await dialog.save() is not None
        await asyncio.sleep(0.3)                               # the window picked the models again

    async def scenario() -> None:
        window.keys = KeyStore(backend=keyring.backends.fail.Keyring(), environ={})
        await window.choose_models()
        first = window.app_settings.llm.chain("fast")[0].provider
        other = next(p for p in ("anthropic", "openai", "gemini") if p != first)
        assert window.key_notice.isVisibleTo(window) and window.key_notice.text() == NO_KEY
        await saved_key(other)
        notice = window.key_notice.text()
        assert window.key_notice.isVisibleTo(window) and notice != NO_KEY
        assert f"there is a key for {other}" in notice and f"use {first}" in notice
        await saved_key(first)
        assert not window.key_notice.isVisibleTo(window)

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


def test_saving_the_settings_leaves_the_log_where_the_user_was_reading(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    bar = window.log_view.tree.verticalScrollBar()

    async def save_with_theme(theme: str) -> None:
        dialog = window.open_settings()
        await asyncio.sleep(0.2)
        dialog.theme.setCurrentIndex(dialog.theme.findData(theme))
        assert await dialog.save() is not None
        await asyncio.sleep(0.5)

    async def scenario() -> None:
        window.keys = KeyStore(backend=keyring.backends.fail.Keyring(), environ={})
        for n in range(300):
            window.say(f"line {n}")
        await asyncio.sleep(0.2)
        assert bar.maximum() > 100 and bar.value() == bar.maximum()
        await save_with_theme("dark")
        assert bar.value() >= bar.maximum() - 4, f"following the log, then at {bar.value()} of {bar.maximum()}"
        bar.setValue(bar.maximum() // 2)                 # the user scrolled up to read
        reading = bar.value()
        await save_with_theme("light")
        assert abs(bar.value() - reading) <= 4, f"was reading at {reading}, then at {bar.value()}"

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


def test_an_unavailable_option_says_why_within_the_dialog(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    """Seen in a screenshot: 'Speak progress aloud (unavailable: Spoken progress needs Qt's text-to-speech (pip
    install PySide6-Addons) and a sp' ran off the dialog's edge; the whole reason is in its tooltip."""
    async def scenario() -> None:
        window.speaker.engine = None
        dialog = window.open_settings()
        await asyncio.sleep(0.2)
        box = dialog.speak
        assert not box.isEnabled() and "unavailable" in box.text()
        assert box.sizeHint().width() <= dialog.width() - 60, (box.text(), box.sizeHint().width(), dialog.width())
        assert "PySide6-Addons" in box.toolTip()
        dialog.reject()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


class _SlowKeyring(keyring.backend.KeyringBackend):
    """A keyring that takes its time to answer, as a locked or busy Secret Service does."""
    priority = 1  # type: ignore[assignment]
    reading = 0               # calls under way: the test waits for them, leaving no thread behind

    def get_password(self, service: str, username: str) -> str | None:
        import time
        type(self).reading += 1
        try:
            time.sleep(0.1)
        finally:
            type(self).reading -= 1
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        pass

    def delete_password(self, service: str, username: str) -> None:
        pass


def test_closing_the_settings_while_the_keyring_is_read_leaves_no_error(
        qtbot: QtBot, qt_loop: qasync.QEventLoop) -> None:
    """Seen in a full run: the dialog was gone while its keyring readings were still on their way, and each
    reading that landed raised 'Internal C++ object (QLabel) already deleted' — three crash reports."""
    import gc

    from relay_desktop.user_secrets import SecretStore

    errors: list[dict[str, object]] = []
    qt_loop.set_exception_handler(lambda loop, context: errors.append(context))

    async def scenario() -> None:
        dialog = SettingsDialog(AppSettings(), KeyStore(backend=_SlowKeyring(), environ={}),
                                secrets=SecretStore(_SlowKeyring(), environ={}))
        dialog.show()
        await asyncio.sleep(0.05)
        dialog.deleteLater()                 # closed and gone before the keyring answers
        # Every reading lands (one provider's keys are read one name after another), then nothing is left.
        quiet = 0
        for _ in range(200):
            quiet = quiet + 1 if not _SlowKeyring.reading else 0
            if quiet >= 10:
                break
            await asyncio.sleep(0.05)
        gc.collect()
        await asyncio.sleep(0.1)

    try:
        qt_loop.run_until_complete(asyncio.wait_for(scenario(), 20))
    finally:
        qt_loop.set_exception_handler(None)
    assert errors == []
