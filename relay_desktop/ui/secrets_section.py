"""The Settings dialog's Secrets section: the saved secrets by name, Add… and Remove.

A saved secret is typed on the phone by the agent, by name; no model ever sees its value (issue 24). So this
section shows names and where each comes from, never a value: the value is typed once, into a password field
of the Add form, which is emptied as soon as the keyring has it. Every keyring call runs in a thread (the
keyring talks D-Bus or its OS service and may block), and the list is read again after every change.

Secrets given in the environment (``RELAY_SECRET_<NAME>``) win over the keyring's and are listed as coming from
there; they cannot be removed here. Without a usable keyring the section says why, keeps listing them, and
Add… is off (there is nowhere to save a secret).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.llm.redaction import redact_exception
from relay_desktop.ui.tasks import spawn
from relay_desktop.user_secrets import ENV_PREFIX, SecretError, SecretName, SecretStore

__all__ = ["EXPLANATION", "AddSecretForm", "SecretsSection", "keyring_words"]

log = logging.getLogger(__name__)

T = TypeVar("T")
EXPLANATION = "The agent types these by name; models never see their values."
ROWS = 4                       # secrets the list shows at least
NAME_ROLE = Qt.ItemDataRole.UserRole
_ERROR_STYLE = "color: #c62828"
_AVAILABLE = "Secrets are stored in the OS keyring"            # how SecretStore.status() starts when it can save
# The keyring's reasons end with advice for API keys (llm.keys); for secrets only the environment is left.
_KEYS_ADVICE = ("; use environment variables or keys for this session only.",
                ", or use environment variables or keys for this session only.")


def keyring_words(status: str) -> tuple[bool, str]:
    """Whether secrets can be saved, and the section's sentence for it, from ``SecretStore.status()``."""
    if status.startswith(_AVAILABLE):   # it names the backend's Python class: not for this window
        return True, "Secrets are saved in your system's keyring."
    reason = status.split(f" Secrets can come from the environment instead ({ENV_PREFIX}NAME).")[0].strip()
    for advice in _KEYS_ADVICE:
        reason = reason.replace(advice, ".")
    return False, (f"{reason} Secrets cannot be saved here; set each one as an environment variable before "
                   f"starting Relay Desktop: {ENV_PREFIX}<NAME> ({ENV_PREFIX}BANK_PIN for the secret bank_pin).")


def _sentence(error: Exception) -> str:
    """A SecretError's message as the start of a sentence (they are written to follow 'error:' on a terminal)."""
    text = str(error).strip()
    return text[:1].upper() + text[1:]


class AddSecretForm(QDialog):
    """Name and value of a new secret. Not modal: the settings (and the app) stay usable while it is open."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a secret")
        self.setModal(False)
        self.setMinimumWidth(460)
        self.name = QLineEdit(self)
        self.name.setPlaceholderText("bank_pin")
        self.name.setAccessibleName("Secret name")
        self.value = QLineEdit(self)
        self.value.setEchoMode(QLineEdit.EchoMode.Password)
        self.value.setAccessibleName("Secret value")
        self.value.setPlaceholderText("typed on the phone, never shown to a model")
        form = QFormLayout()
        form.addRow("&Name:", self.name)
        form.addRow("&Value:", self.value)
        hint = QLabel("Lower-case letters, digits and _, starting with a letter. Saved in the keyring at once.", self)
        hint.setWordWrap(True)
        self.error = QLabel("", self)
        self.error.setStyleSheet(_ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def start(self) -> None:
        self.name.clear()
        self.value.clear()
        self.say("")
        if self.isVisible():        # open already, perhaps behind the settings: bring it forward
            self.raise_()
        self.show()
        self.activateWindow()
        self.name.setFocus()

    def say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))
        # A wrapped label in a top-level window does not make the window taller by itself: ask for the height
        # the text needs at the form's width, or a long reason would be cut.
        self.error.setMinimumHeight(self.error.heightForWidth(max(self.width() - 24, 400)) if text else 0)
        self.adjustSize()

    def done(self, result: int) -> None:
        self.value.clear()          # a value left in a hidden field would still be in memory and in text()
        super().done(result)


class SecretsSection(QWidget):
    """The secrets' names and sources, read in a thread; Add… and Remove change the keyring, then read again."""

    def __init__(self, store: Callable[[], SecretStore], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._make_store = store
        self._store: SecretStore | None = None
        self.available: bool | None = None         # whether the keyring can save secrets; None: not known yet
        self._tasks: set[asyncio.Task[Any]] = set()
        self.explanation = QLabel(EXPLANATION, self)
        self.explanation.setWordWrap(True)
        self.status = QLabel("Checking the keyring…", self)
        self.status.setWordWrap(True)
        self.list = QTreeWidget(self)
        self.list.setColumnCount(2)
        self.list.setHeaderLabels(["Name", "Comes from"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setAccessibleName("Saved secrets")
        self.list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.list.header().setStretchLastSection(True)
        row = self.fontMetrics().height() + 8
        self.list.setMinimumHeight(self.list.header().sizeHint().height() + ROWS * row + 2 * self.list.frameWidth())
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.add_button = QPushButton("A&dd…", self)
        self.add_button.setToolTip("Save a new secret in the keyring")
        self.add_button.clicked.connect(self.open_form)
        self.remove_button = QPushButton("Re&move", self)
        self.remove_button.clicked.connect(lambda: self._spawn(self.remove()))
        self.error = QLabel("", self)
        self.error.setStyleSheet(_ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        self.form = AddSecretForm(self)
        self.form.buttons.accepted.connect(lambda: self._spawn(self.save_new()))
        self.confirm: QMessageBox | None = None     # the open "Remove …?" question, for tests to answer
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        middle = QHBoxLayout()
        middle.addWidget(self.list, 1)
        middle.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addWidget(self.status)
        layout.addLayout(middle, 1)
        layout.addWidget(self.error)
        self.add_button.setEnabled(False)           # until the keyring is known to take one
        self._selection_changed()

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    async def _in_thread(self, work: Callable[[SecretStore], T]) -> T:
        def run() -> T:
            if self._store is None:     # built here too: finding the system's keyring may itself talk to D-Bus
                self._store = self._make_store()
            return work(self._store)
        return await asyncio.to_thread(run)

    # ------------------------------------------------------------ the list

    async def refresh(self) -> None:
        """Read the names and the keyring's state again (never a value)."""
        chosen = self.chosen()
        try:
            names, status = await self._in_thread(lambda store: (store.names(), store.status()))
        except Exception as error:  # names() and status() report keyring trouble themselves; this is a last guard
            log.warning("cannot list the saved secrets: %s", redact_exception(error))
            self.status.setText(f"The saved secrets could not be read: {redact_exception(error)}")
            return
        self.available, words = keyring_words(status)
        self.status.setText(words)
        self.status.setMinimumHeight(self.status.heightForWidth(max(self.status.width(), 600)))
        self.add_button.setEnabled(self.available)
        self.add_button.setToolTip("Save a new secret in the keyring" if self.available else
                                   f"There is no keyring to save a secret in: set {ENV_PREFIX}<NAME> instead")
        self._fill(names, chosen.name if chosen else None)

    def _fill(self, names: list[SecretName], select: str | None) -> None:
        self.list.clear()
        for secret in names:
            from_env = secret.source != "keyring"
            source = f"Environment ({secret.source})" if from_env else "Keyring"
            item = QTreeWidgetItem([secret.name, source])
            item.setData(0, NAME_ROLE, secret)
            if from_env:
                tip = f"{secret.name} comes from the environment ({secret.source}); it can only be removed there"
                item.setToolTip(0, tip)
                item.setToolTip(1, tip)
            self.list.addTopLevelItem(item)
            if secret.name == select:
                item.setSelected(True)
        if not names:
            hint = "Add… saves one in the keyring" if self.available else f"Set {ENV_PREFIX}<NAME> to give one"
            empty = QTreeWidgetItem(["No secrets yet", hint])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addTopLevelItem(empty)
        self._selection_changed()

    def chosen(self) -> SecretName | None:
        items = self.list.selectedItems()
        secret = items[0].data(0, NAME_ROLE) if items else None
        return secret if isinstance(secret, SecretName) else None

    def select(self, name: str) -> None:
        for index in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(index)
            item.setSelected(item.text(0) == name)

    def names(self) -> list[tuple[str, str]]:
        """What the list shows, as (name, comes from) pairs."""
        items = (self.list.topLevelItem(i) for i in range(self.list.topLevelItemCount()))
        return [(item.text(0), item.text(1)) for item in items if item.data(0, NAME_ROLE) is not None]

    def _selection_changed(self) -> None:
        secret = self.chosen()
        if secret is None:
            self.remove_button.setEnabled(False)
            self.remove_button.setToolTip("Choose a secret saved in the keyring to remove it")
        elif secret.source != "keyring":
            # Not ours to delete: the variable is set wherever the app was started from.
            self.remove_button.setEnabled(False)
            self.remove_button.setToolTip(f"{secret.name} comes from the environment ({secret.source}); "
                                          "it can only be removed there")
        else:
            self.remove_button.setEnabled(True)
            self.remove_button.setToolTip(f"Delete {secret.name} from the keyring")

    # ------------------------------------------------------------ changes

    def open_form(self) -> None:
        self.form.start()

    async def save_new(self) -> bool:
        """Save the form's secret in the keyring; on success empty and close the form and list the name."""
        form = self.form
        name, value = form.name.text().strip(), form.value.text()
        form.say("")
        form.save_button.setEnabled(False)
        try:
            await self._in_thread(lambda store: store.set(name, value))
        except SecretError as error:
            form.say(_sentence(error))
            return False
        except Exception as error:  # SecretStore.set wraps keyring errors; anything else still gets words
            log.warning("cannot save a secret: %s", redact_exception(error))
            form.say(f"The secret could not be saved: {redact_exception(error)}")
            return False
        finally:
            form.save_button.setEnabled(True)
        form.accept()               # empties the value field (AddSecretForm.done)
        await self.refresh()
        self.select(name)
        return True

    async def remove(self) -> bool:
        """Ask, then delete the chosen keyring secret; True when it was deleted."""
        secret = self.chosen()
        if secret is None or secret.source != "keyring":
            return False
        box = QMessageBox(QMessageBox.Icon.Question, "Remove a secret",
                          f"Remove the secret {secret.name} from the keyring? The agent will no longer be able to "
                          "type it.", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        self.confirm = box
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.finished.connect(lambda result: done.done() or done.set_result(result))
        box.open()                  # not exec(): the loop, and with it the runs, go on
        try:
            answer = await done
        finally:
            self.confirm = None
            box.deleteLater()
        if answer != QMessageBox.StandardButton.Yes:
            return False
        self.error.hide()
        problem = None
        try:
            await self._in_thread(lambda store: store.delete(secret.name))
        except SecretError as error:
            problem = _sentence(error)
        except Exception as error:  # SecretStore.delete wraps keyring errors; anything else still gets words
            log.warning("cannot delete the secret %s: %s", secret.name, redact_exception(error))
            problem = f"The secret {secret.name} could not be removed: {redact_exception(error)}"
        if problem is not None:
            self.error.setText(problem)
            self.error.show()
        await self.refresh()        # after a failure too: someone else may have removed it meanwhile
        return problem is None
