"""The Settings dialog's Private apps section: apps whose screens are never sent to a model as images.

On these apps' screens the agent works from the elements alone (issue 24), as on a protected (FLAG_SECURE)
screen: a banking app's balance or an authenticator's codes stay on the machine. The user keeps the list here
(saved in ``AppSettings.private_apps``, read by the agent as ``AgentSettings.private_apps``); the section also
suggests the banking, payment and sign-in apps installed on the connected phone — or, without a phone, a few
well-known ones — each added with one click. Nothing is saved until the dialog's Save.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.device import app_labels
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.redaction import redact_exception
from relay_desktop.ui.tasks import spawn

__all__ = ["EXPLANATION", "KNOWN_PRIVATE_APPS", "PrivateAppsSection", "is_package_name", "looks_private"]

log = logging.getLogger(__name__)

EXPLANATION = ("Screens of these apps are never sent to a model as images: there the agent works from the "
               "screen's elements (its text and controls) alone. Banking, payment and sign-in apps belong here.")

# Well-known banking, payment, authenticator and password apps, with the names their launchers show. Offered
# when no phone is connected, and completed in the package field; the first few are the ones suggested then.
KNOWN_PRIVATE_APPS = {
    "com.northwind.bank": "Northwind Bank",              # the virtual phone's bank
    "com.google.android.apps.authenticator2": "Google Authenticator",
    "com.google.android.apps.walletnfcrel": "Google Wallet",
    "com.paypal.android.p2pmobile": "PayPal",
    "com.azure.authenticator": "Microsoft Authenticator",
    "com.authy.authy": "Authy",
    "com.x8bit.bitwarden": "Bitwarden",
    "com.venmo": "Venmo",
    "com.squareup.cash": "Cash App",
    "com.revolut.revolut": "Revolut",
    "de.number26.android": "N26",
    "co.uk.getmondo": "Monzo",
    "com.chase.sig.android": "Chase",
    "com.infonow.bofa": "Bank of America",
    "com.wf.wellsfargomobile": "Wells Fargo",
}
OFFLINE_SUGGESTIONS = 6          # well-known apps offered when no phone says what it has
COLUMNS = 3                      # suggestion buttons per row
PHONE_TIMEOUT = 10.0             # seconds to wait for the phone's app list
_ERROR_STYLE = "color: #c62828"
PACKAGE_ROLE = Qt.ItemDataRole.UserRole
EMPTY = "No private apps yet"

# Words in a package name that mark a banking, payment or sign-in app: anywhere in the name…
_WORDS = ("bank", "wallet", "authenticator", "authy", "password", "finance", "credit", "paypal", "venmo")
# …or as a whole part of it (com.squareup.cash, org.fedorahosted.freeotp; "otp" inside "hotpepper" is not one).
_PARTS = re.compile(r"(?:pay\w*|\w*pay|otp|freeotp|totp|2fa|cash|money)")
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+")


def is_package_name(text: str) -> bool:
    return bool(_PACKAGE.fullmatch(text))


def looks_private(package: str) -> bool:
    """Whether a package's name looks like a banking, payment, authenticator or password app's."""
    name = package.lower()
    if package in KNOWN_PRIVATE_APPS or any(word in name for word in _WORDS):
        return True
    return any(_PARTS.fullmatch(part) for part in re.split(r"[._]", name))


def _label(package: str, apps: dict[str, str]) -> str:
    return KNOWN_PRIVATE_APPS.get(package) or apps.get(package) or app_labels.label_for(package)


class _PackageField(QLineEdit):
    """The package field: Enter adds what was typed instead of pressing the dialog's Save."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        super().keyPressEvent(event)                 # emits returnPressed, then lets the event go on to the dialog
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()


class PrivateAppsSection(QWidget):
    """The list of private apps (label and package), a field to add one by package or name, Remove, and
    suggestion buttons. ``installed`` lists the connected phone's apps (None: no phone is connected)."""

    def __init__(self, packages: Iterable[str],
                 installed: Callable[[], Awaitable[Sequence[AppInfo]]] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._installed = installed
        self._labels: dict[str, str] = {}            # the phone's apps' labels, once read
        self._tasks: set[asyncio.Task[Any]] = set()
        self.explanation = QLabel(EXPLANATION, self)
        self.explanation.setWordWrap(True)
        self.list = QTreeWidget(self)
        self.list.setColumnCount(2)
        self.list.setHeaderLabels(["App", "Package"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setAccessibleName("Private apps")
        self.list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.list.header().setStretchLastSection(True)
        self.list.setMinimumHeight(self.list.header().sizeHint().height() + 4 * (self.fontMetrics().height() + 8))
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.remove_button = QPushButton("Re&move", self)
        self.remove_button.setToolTip("Send the chosen apps' screens as images again")
        self.remove_button.clicked.connect(self.remove_selected)
        self.field = _PackageField(self)
        self.field.setPlaceholderText("Package name (com.example.bank) or an app's name")
        self.field.setAccessibleName("Private app to add")
        completer = QCompleter(sorted({*KNOWN_PRIVATE_APPS, *KNOWN_PRIVATE_APPS.values()}), self.field)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.field.setCompleter(completer)
        self.field.returnPressed.connect(self.add_typed)
        self.add_button = QPushButton("&Add", self)
        self.add_button.setAutoDefault(False)
        self.add_button.clicked.connect(self.add_typed)
        self.error = QLabel("", self)
        self.error.setStyleSheet(_ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        self.suggestion_status = QLabel("", self)
        self.suggestion_status.setWordWrap(True)
        self.suggestion_buttons: dict[str, QPushButton] = {}
        self._suggested: list[str] = []
        self._status = ""
        self._grid = QGridLayout()
        side = QVBoxLayout()
        side.addWidget(self.remove_button)
        side.addStretch(1)
        middle = QHBoxLayout()
        middle.addWidget(self.list, 1)
        middle.addLayout(side)
        adding = QHBoxLayout()
        adding.addWidget(self.field, 1)
        adding.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addLayout(middle, 1)
        layout.addLayout(adding)
        layout.addWidget(self.error)
        layout.addSpacing(6)
        layout.addWidget(self.suggestion_status)
        layout.addLayout(self._grid)
        for package in packages:
            self._append(package)
        self._show_empty()
        self._selection_changed()
        self._show_suggestions([], "Looking for banking, payment and sign-in apps on the phone…"
                               if installed is not None else "")

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    # ------------------------------------------------------------ the list

    def packages(self) -> tuple[str, ...]:
        """The private apps' packages, in the order they were added."""
        items = (self.list.topLevelItem(i) for i in range(self.list.topLevelItemCount()))
        return tuple(str(package) for item in items if (package := item.data(0, PACKAGE_ROLE)))

    def _append(self, package: str) -> bool:
        if package in self.packages():
            return False
        item = QTreeWidgetItem([_label(package, self._labels), package])
        item.setData(0, PACKAGE_ROLE, package)
        item.setToolTip(0, f"{package}: its screens are never sent as images")
        self.list.addTopLevelItem(item)
        self._show_empty()
        return True

    def _show_empty(self) -> None:
        """A row that says the list is empty, only while it is."""
        empty = self.list.findItems(EMPTY, Qt.MatchFlag.MatchExactly, 0)
        if self.packages():
            for item in empty:
                self.list.takeTopLevelItem(self.list.indexOfTopLevelItem(item))
        elif not empty:
            item = QTreeWidgetItem([EMPTY, "every app's screens may be sent as images"])
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addTopLevelItem(item)

    def add(self, package: str) -> bool:
        """Add a package to the list (not saved until the dialog's Save); False when it was there already."""
        added = self._append(package)
        self.say("" if added else f"{_label(package, self._labels)} ({package}) is in the list already.")
        self._update_suggestions()
        return added

    def add_typed(self) -> bool:
        """Add what the field holds: a package name, or the name of a suggested or well-known app."""
        text = self.field.text().strip()
        if not text:
            self.say("Type an app's package name (like com.example.bank), or choose a suggestion below.")
            return False
        names = {label.lower(): package for package, label in {**self._labels, **KNOWN_PRIVATE_APPS}.items()}
        package = names.get(text.lower()) or (text if is_package_name(text) else None)
        if package is None:
            self.say(f"“{text}” is not a package name (like com.example.bank) nor the name of an app on the "
                     "phone. A package name is shown in the Inspect tab, or by `adb shell pm list packages`.")
            return False
        added = self.add(package)
        if added:
            self.field.clear()
        return added

    def remove_selected(self) -> list[str]:
        removed = []
        for item in self.list.selectedItems():
            removed.append(item.text(1))
            self.list.takeTopLevelItem(self.list.indexOfTopLevelItem(item))
        self._show_empty()
        self.say("")
        self._update_suggestions()
        return removed

    def select(self, package: str) -> None:
        for index in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(index)
            item.setSelected(item.text(1) == package)

    def say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def _selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.list.selectedItems()))

    # ------------------------------------------------------------ suggestions

    async def refresh_suggestions(self) -> None:
        """Suggest the phone's banking, payment and sign-in apps; without a phone (or when it cannot say),
        well-known ones."""
        if self._installed is None:
            self._show_suggestions(list(KNOWN_PRIVATE_APPS)[:OFFLINE_SUGGESTIONS],
                                   "No phone is connected. Well-known banking and sign-in apps:")
            return
        try:
            apps = await asyncio.wait_for(self._installed(), PHONE_TIMEOUT)
        except Exception as error:  # adb gone, phone busy: the known list still helps
            reason = "it did not answer in time" if isinstance(error, TimeoutError) else redact_exception(error)
            log.info("cannot list the phone's apps for suggestions: %s", reason)
            self._show_suggestions(list(KNOWN_PRIVATE_APPS)[:OFFLINE_SUGGESTIONS],
                                   f"The phone's apps could not be listed ({reason}). Well-known banking and "
                                   "sign-in apps:")
            return
        self._labels = {app.package: app.label for app in apps}
        found = sorted((app.package for app in apps if looks_private(app.package)),
                       key=lambda p: _label(p, self._labels).lower())
        self._show_suggestions(found, "On the phone, these look like banking, payment or sign-in apps:" if found
                               else "None of the phone's apps looks like a banking, payment or sign-in app.")

    def suggestions(self) -> list[str]:
        """The packages offered now (not those in the list already)."""
        return [p for p, button in self.suggestion_buttons.items() if not button.isHidden()]

    def _show_suggestions(self, packages: list[str], status: str) -> None:
        self._suggested, self._status = packages, status
        for button in self.suggestion_buttons.values():
            self._grid.removeWidget(button)
            button.deleteLater()
        self.suggestion_buttons = {}
        for package in packages:
            label = _label(package, self._labels)
            button = QPushButton(f"+ {label}", self)
            button.setAutoDefault(False)
            button.setToolTip(f"Add {package}: its screens are never sent as images")
            button.setAccessibleName(f"Add {label} ({package}) to the private apps")
            button.clicked.connect(lambda _=False, p=package: self.add(p))
            self.suggestion_buttons[package] = button
        self._update_suggestions()

    def _update_suggestions(self) -> None:
        """Lay out the suggestions not yet in the list, COLUMNS to a row."""
        listed = set(self.packages())
        shown = [p for p in self._suggested if p not in listed]
        for package, button in self.suggestion_buttons.items():
            self._grid.removeWidget(button)
            button.setHidden(package in listed)
        for index, package in enumerate(shown):
            self._grid.addWidget(self.suggestion_buttons[package], index // COLUMNS, index % COLUMNS)
        status = "Every suggested app is in the list." if self._suggested and not shown else self._status
        self.suggestion_status.setText(status)
        self.suggestion_status.setVisible(bool(status))
