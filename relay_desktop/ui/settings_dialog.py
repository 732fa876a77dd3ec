"""Settings, in four tabs: API keys in the OS keyring (with a Test button per provider) and models per role;
agent options; the private apps whose screens are never sent as images (ui/private_apps_section.py); and the
saved secrets the agent types by name (ui/secrets_section.py).

Keys go to the keyring and nowhere else. Without a usable keyring the window says so and offers the two
other places a key may live: environment variables, or this session only — never a plain file. Everything
else is saved through `AppSettings`. Nothing here blocks the loop: keyring and network calls are awaited.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.app_settings import AppSettings
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.check import check_provider
from relay_desktop.llm.config import ROLES, LLMSettings, ModelRef, builtin_provider
from relay_desktop.llm.keys import ENV_VARS, KeyStore
from relay_desktop.ui.private_apps_section import PrivateAppsSection
from relay_desktop.ui.secrets_section import SecretsSection
from relay_desktop.ui.stored_keys import StoredKeys
from relay_desktop.ui.tasks import spawn
from relay_desktop.user_secrets import SecretStore

__all__ = ["PROVIDERS", "SettingsDialog"]

PROVIDERS = ("anthropic", "openai", "gemini")
RESULT_COLUMNS = 90        # characters per line of a key's test result
_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI", "gemini": "Gemini"}


class SettingsDialog(QDialog):
    # Keys were removed (at once, whether Save is pressed or not): the window picks its models again. Keys
    # typed are stored by Save, which the window follows through ``accepted``.
    keys_changed = Signal()

    def __init__(self, settings: AppSettings, keys: KeyStore, parent: QWidget | None = None, *,
                 secrets: SecretStore | None = None,
                 installed_apps: Callable[[], Awaitable[Sequence[AppInfo]]] | None = None) -> None:
        """``installed_apps`` lists the connected phone's apps, for the private apps' suggestions (None: no
        phone is connected, well-known apps are suggested)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(720)
        self.settings = settings
        self.keys = keys
        # Secrets live in the same keyring as the keys unless a store is given. The default is built in the
        # section's thread: keys.backend may have to find the system's keyring, which can talk to D-Bus.
        self.secrets_section = SecretsSection(
            lambda: secrets if secrets is not None else SecretStore(keys.backend), self)
        self.private_apps = PrivateAppsSection(settings.private_apps, installed_apps, self)
        self.saved: AppSettings | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.keyring_status = QLabel("Checking the keyring…", self)
        self.keyring_status.setWordWrap(True)
        self.key_fields: dict[str, QLineEdit] = {}
        self.results: dict[str, QLabel] = {}
        self.stored_keys: dict[str, StoredKeys] = {}
        self.session_only = QCheckBox("Keep keys for this session only (not saved anywhere)", self)
        keys_box = QGroupBox("API keys", self)
        box_layout = QVBoxLayout(keys_box)
        box_layout.addWidget(self.keyring_status)   # outside the grid: a wrapped label there gets clipped
        width = max(self.fontMetrics().horizontalAdvance(_NAMES[name]) for name in PROVIDERS) + 8
        for name in PROVIDERS:
            field = QLineEdit(self)
            field.setEchoMode(QLineEdit.EchoMode.Password)
            field.setPlaceholderText(f"{name} key (leave empty to keep the saved one)")
            field.setAccessibleName(f"{name} API key")
            test = QPushButton("Test", self)
            test.setAccessibleName(f"Test {name}")
            test.clicked.connect(lambda _=False, n=name: self._spawn(self.test(n)))
            label = QLabel(f"&{_NAMES[name]}", self)
            label.setBuddy(field)
            label.setMinimumWidth(width)
            row = QHBoxLayout()
            row.addWidget(label)
            row.addWidget(field, 1)
            row.addWidget(test)
            box_layout.addLayout(row)
            # The result goes on a line of its own under the key, broken into lines here rather than by Qt's
            # word wrap: a wrapped label's height is not what the dialog grows by, so long errors were cut.
            result = QLabel("", self)
            result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            result.setContentsMargins(width + 6, 0, 0, 0)
            result.hide()
            box_layout.addWidget(result)
            self.key_fields[name], self.results[name] = field, result
            stored = StoredKeys(keys, name, self)       # what is stored already, masked, and its Remove
            stored.setContentsMargins(width + 6, 0, 0, 0)
            stored.changed.connect(self.keys_changed)
            box_layout.addWidget(stored)
            self.stored_keys[name] = stored
        box_layout.addWidget(self.session_only)
        models_box = QGroupBox("Models (provider/model; the first line is tried first)", self)
        form = QFormLayout(models_box)
        self.role_fields: dict[str, QLineEdit] = {}
        for role in ROLES:
            field = QLineEdit(", ".join(str(ref) for ref in settings.llm.chain(role)), self)
            field.setAccessibleName(f"{role} models")
            form.addRow(f"{role.capitalize()}:", field)
            self.role_fields[role] = field
        self.base_url = QLineEdit(self)
        self.base_url.setPlaceholderText("http://localhost:11434/v1 (Ollama, vLLM, LM Studio, OpenRouter)")
        self.base_url.setAccessibleName("OpenAI-compatible server URL")
        local = settings.llm.providers.get("local")
        self.base_url.setText(local.base_url or "" if local else "")
        form.addRow("Compatible server (as 'local'):", self.base_url)
        agent_box = QGroupBox("Agent", self)
        agent_form = QFormLayout(agent_box)
        self.max_steps = QSpinBox(self)
        self.max_steps.setRange(1, 500)
        self.max_steps.setValue(settings.max_steps)
        self.max_steps.setAccessibleName("Maximum steps")
        self.screenshot_kb = QSpinBox(self)
        self.screenshot_kb.setRange(20, 2000)
        self.screenshot_kb.setSuffix(" kB")
        self.screenshot_kb.setValue(settings.screenshot_max_kb)
        self.screenshot_kb.setAccessibleName("Screenshot size budget")
        self.screenshots = QCheckBox("Send screenshots (not only the element list)", self)
        self.screenshots.setChecked(settings.screenshots)
        self.speak = QCheckBox("Speak progress aloud", self)
        self.speak.setChecked(settings.speak_progress)
        self.use_routines = QCheckBox("Use saved &routines when a task matches one", self)
        self.use_routines.setChecked(settings.use_routines)
        self.use_routines.setToolTip("A typed task that is a saved routine (with other values, say) replays it "
                                     "without a model; the agent takes over only where the phone differs")
        agent_form.addRow("Maximum steps:", self.max_steps)
        agent_form.addRow("Screenshot budget:", self.screenshot_kb)
        agent_form.addRow(self.screenshots)
        agent_form.addRow(self.speak)
        agent_form.addRow(self.use_routines)
        self.clipboard_sync = QCheckBox("Share the &clipboard with the phone (copy on one, paste on the other)", self)
        self.clipboard_sync.setChecked(settings.clipboard_sync)
        agent_form.addRow(self.clipboard_sync)
        self.theme = QComboBox(self)
        for value, text in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            self.theme.addItem(text, value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.theme.setAccessibleName("Appearance")
        agent_form.addRow("&Appearance:", self.theme)
        agent_form.addRow(QLabel("Sending, paying, deleting and installing ask you first (a routine saved with "
                                 "“Don't ask again” does not).", self))
        self.error = QLabel("", self)
        self.error.setStyleSheet("color: #c62828")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(lambda: self._spawn(self.save()))
        buttons.rejected.connect(self.reject)
        # Tabs: the sections one above the other were taller than a 1366x768 screen.
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Settings sections")
        models_page = QWidget(self)
        models_layout = QVBoxLayout(models_page)
        models_layout.addWidget(keys_box)
        models_layout.addWidget(models_box)
        models_layout.addStretch(1)
        agent_page = QWidget(self)
        agent_layout = QVBoxLayout(agent_page)
        agent_layout.addWidget(agent_box)
        agent_layout.addStretch(1)
        for page, title in ((models_page, "&Models and keys"), (agent_page, "A&gent"),
                            (self.private_apps, "&Private apps"), (self.secrets_section, "&Secrets")):
            self.tabs.addTab(page, title)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.error, 1)
        bottom.addWidget(buttons)
        layout.addLayout(bottom)
        # One keyring reading at a time: several at once on a locked Secret Service hung (one waits on an
        # unlock prompt that never comes, the others behind it), and the dialog said "Checking…" for good.
        self._spawn(self._read_keyring())
        self._spawn(self.private_apps.refresh_suggestions())

    async def _read_keyring(self) -> None:
        await self.show_keyring_status()
        await self.secrets_section.refresh()
        await self.show_stored_keys()

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    async def show_keyring_status(self) -> None:
        status = await self.keys.astatus()
        if status.available:
            self.keyring_status.setText(f"Keys are stored in your system's keyring. {status.message}".strip())
        else:
            env = ", ".join(sorted({v for names in ENV_VARS.values() for v in names}))
            self.keyring_status.setText(f"{status.message} Environment variables: {env}. Keys typed here stay in "
                                        "this session only; they are never written to a file.")
            self.session_only.setChecked(True)
            self.session_only.setEnabled(False)
        self._fit()

    @property
    def stored(self) -> dict[str, QLabel]:
        """Each provider's line of stored keys (masked)."""
        return {name: row.label for name, row in self.stored_keys.items()}

    @property
    def remove_buttons(self) -> dict[str, QPushButton]:
        return {name: row.remove for name, row in self.stored_keys.items()}

    async def show_stored_keys(self) -> None:
        for row in self.stored_keys.values():
            await row.refresh()

    def _fit(self) -> None:
        """Keep what was just written readable in full: each label asks for the height its text needs (a
        layout otherwise squeezed the multi-line ones, cutting them), and the dialog grows to match."""
        status = self.keyring_status
        status.setMinimumHeight(status.heightForWidth(max(status.width(), 600)))
        for result in self.results.values():
            result.setMinimumHeight(result.sizeHint().height() if result.text() else 0)
        layout = self.layout()
        if layout is not None:
            layout.activate()

    def _typed(self, name: str) -> list[str]:
        return [line for line in self.key_fields[name].text().split() if line]

    async def _store_typed_keys(self) -> None:
        for name in PROVIDERS:
            typed = self._typed(name)
            if not typed:
                continue
            if self.session_only.isChecked():
                self.keys.set_session_keys(name, typed)
            else:
                await self.keys.asave(name, typed)
            self.key_fields[name].clear()

    async def test(self, name: str) -> None:
        """Save nothing; try the typed key (or the stored ones) with a one-word request and say what happened."""
        self.results[name].setText("Testing…")
        self.results[name].show()
        typed = self._typed(name)
        store = self.keys
        if typed:
            store = KeyStore(backend=self.keys.backend, environ={})
            store.set_session_keys(name, typed)
        model = self._first_model(name)
        provider = self.settings.llm.providers.get(name) or builtin_provider(name)
        results = await check_provider(provider, model, store, timeout=20)
        lines = (f"{'✔' if r.ok else '✘'} {r.status}: {r.message}" for r in results)
        self.results[name].setText("\n".join(textwrap.fill(line, RESULT_COLUMNS) for line in lines))
        self._fit()

    def _first_model(self, provider: str) -> str | None:
        for field in self.role_fields.values():
            for part in field.text().split(","):
                if part.strip().startswith(provider + "/"):
                    return part.strip().split("/", 1)[1]
        return None

    def build(self) -> AppSettings:
        """The settings as typed (raises ValueError with a plain message for bad input)."""
        providers = {}
        roles: dict[str, tuple[ModelRef, ...]] = {}
        base_url = self.base_url.text().strip()
        for role, field in self.role_fields.items():
            refs = tuple(ModelRef.parse(part.strip()) for part in field.text().split(",") if part.strip())
            if not refs:
                raise ValueError(f"give at least one model for the {role} role, as provider/model")
            for ref in refs:
                if ref.provider not in providers:
                    known = self.settings.llm.providers.get(ref.provider)
                    if ref.provider == "local":
                        if not base_url:
                            raise ValueError("the 'local' provider needs the compatible server's URL")
                        providers[ref.provider] = builtin_provider("local", base_url)
                    else:
                        providers[ref.provider] = known or builtin_provider(ref.provider)
            roles[role] = refs
        llm = LLMSettings(providers, roles)  # type: ignore[arg-type]
        return AppSettings(llm=llm, max_steps=self.max_steps.value(), screenshot_max_kb=self.screenshot_kb.value(),
                           screenshots=self.screenshots.isChecked(), shell_allowed=self.settings.shell_allowed,
                           speak_progress=self.speak.isChecked(), split_screen=self.settings.split_screen,
                           use_routines=self.use_routines.isChecked(), theme=str(self.theme.currentData()),
                           private_apps=self.private_apps.packages(),
                           clipboard_sync=self.clipboard_sync.isChecked())

    async def save(self) -> AppSettings | None:
        try:
            settings = self.build()
        except ValueError as exc:       # the models' fields are all that can be wrong: show them
            self.error.setText(str(exc))
            self.tabs.setCurrentIndex(0)
            return None
        try:
            await self._store_typed_keys()
        except Exception as exc:  # a keyring refusal: say so, keep the dialog open
            self.error.setText(f"The keyring did not take the key: {exc}")
            return None
        await asyncio.to_thread(settings.save)
        self.saved = settings
        self.accept()
        return settings
