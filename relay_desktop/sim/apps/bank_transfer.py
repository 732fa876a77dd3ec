"""Northwind Bank's transfers: choose the accounts, type the amount, review it, confirm it.

As in real banking apps, the review screen is a separate step ("Confirm transfer"), and money to another
person (a saved payee) also asks for the PIN again before it goes. Nothing moves until then: leaving any
screen before the confirmation leaves every balance as it was. :class:`BankTransfers` supplies these screens
to :class:`~relay_desktop.sim.apps.bank.NorthwindBank`, which holds the data.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import keyboard_inset
from relay_desktop.sim.ui import ERROR, ON_SURFACE_VARIANT
from relay_desktop.sim.views import Color, Style, View

__all__ = ["ACCOUNT", "ACCOUNTS", "COMPLETE", "NAVY", "REVIEW", "SIGN_IN", "TRANSFER", "Account", "BankTransfers",
           "Payee", "Transaction", "money", "parse_amount"]

SIGN_IN = ".auth.SignInActivity"
ACCOUNTS = ".home.AccountsActivity"
ACCOUNT = ".accounts.AccountDetailActivity"
TRANSFER = ".transfer.TransferActivity"
REVIEW = ".transfer.ReviewTransferActivity"
COMPLETE = ".transfer.TransferCompleteActivity"
NAVY: Color = (16, 52, 96)
_AMOUNT = re.compile(r"\d+(?:\.\d{1,2})?")


@dataclass
class Transaction:
    date: str
    description: str
    amount_cents: int


@dataclass
class Account:
    id: int
    name: str
    last4: str
    balance_cents: int
    transactions: list[Transaction] = field(default_factory=list)
    credit: bool = False            # a credit card: its balance is what is owed (negative), money cannot leave it

    @property
    def label(self) -> str:
        return f"{self.name} ••{self.last4}"


@dataclass(frozen=True)
class Payee:
    name: str
    last4: str

    @property
    def label(self) -> str:
        return f"{self.name} ••{self.last4}"


def money(cents: int) -> str:
    sign = "−" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


def parse_amount(text: str) -> int | None:
    """Cents from what a user types in an amount field ("50", "$1,200.5", "12.99"); None if it is not money."""
    cleaned = text.strip().lstrip("$").replace(",", "").strip()
    if not _AMOUNT.fullmatch(cleaned):
        return None
    whole, _, fraction = cleaned.partition(".")
    return int(whole) * 100 + int((fraction + "00")[:2])


class BankTransfers(App):
    """The transfer screens; the subclass supplies accounts, payees, the PIN and the attempt counter."""

    accounts: list[Account]
    payees: list[Payee]
    transfers: list[dict[str, Any]]
    pin: str
    failed_attempts: int

    def account(self, account_id: Any) -> Account:
        return next((a for a in self.accounts if a.id == account_id), self.accounts[0])

    def _destination(self, key: str) -> Account | Payee | None:
        kind, _, value = key.partition(":")
        if kind == "acct":
            return next((a for a in self.accounts if str(a.id) == value), None)
        return next((p for p in self.payees if p.name == value), None)

    # ------------------------------------------------------------ the form

    def transfer_screen(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state
        state.setdefault("from_id", self.accounts[0].id)
        state.setdefault("to", "")
        source = self.account(state["from_id"])
        destination = self._destination(state["to"])
        bar = ui.app_bar("Transfer money", up=self.finish)
        chevron = ui.icon("chevron_right")
        rows: list[View] = [
            ui.list_item("From", f"{source.label} · {money(source.balance_cents)}", id="from_selector",
                         on_click=lambda: self.show_dialog(activity, "from"), trailing=chevron,
                         title_id="selector_label", subtitle_id="selected_account"),
            ui.list_item("To", destination.label if destination else "Choose an account or payee", id="to_selector",
                         on_click=lambda: self.show_dialog(activity, "to"), trailing=ui.icon("chevron_right"),
                         title_id="selector_label", subtitle_id="selected_account"),
            ui.edit_text("amount_input", state.get("amount", ""), hint="Amount ($)",
                         on_change=self._setter(activity, "amount")),
            ui.edit_text("memo_input", state.get("memo", ""), hint="Memo (optional)",
                         on_change=self._setter(activity, "memo")),
        ]
        if state.get("error"):
            rows.append(ui.text(state["error"], size=14, color=ERROR, id="transfer_error"))
        review = ui.button("Review transfer", lambda: self._review(activity), id="review_button")
        review.style.bg = NAVY
        rows.append(review)
        body = ui.scroll(rows, key="transfer_form", cls="android.widget.ScrollView", gap=12, padding=ui.pad(16, 8))
        return ui.screen(bar, body, bottom=keyboard_inset(self.phone), id="transfer_root")

    def _setter(self, activity: Activity, name: str) -> Callable[[str], None]:
        def set_value(value: str) -> None:
            activity.state[name] = value
            activity.state.pop("error", None)
        return set_value

    def from_dialog(self, activity: Activity) -> View:
        ui = self.ui
        options = [self._option(activity, a.label, money(a.balance_cents), "from_id", a.id) for a in self.accounts]
        return ui.dialog("Transfer from", "", [("Cancel", lambda: self.dismiss_dialog(activity))], body=options)

    def to_dialog(self, activity: Activity) -> View:
        ui = self.ui
        source = activity.state.get("from_id")
        options = [self._option(activity, a.label, "Your account", "to", f"acct:{a.id}")
                   for a in self.accounts if a.id != source]
        options += [self._option(activity, p.label, "Saved payee", "to", f"payee:{p.name}") for p in self.payees]
        return ui.dialog("Transfer to", "", [("Cancel", lambda: self.dismiss_dialog(activity))], body=options)

    def _option(self, activity: Activity, title: str, subtitle: str, name: str, value: Any) -> View:
        def choose() -> None:
            activity.state[name] = value
            activity.state.pop("error", None)
            if name == "from_id" and activity.state.get("to") == f"acct:{value}":
                activity.state["to"] = ""       # an account cannot pay itself
            self.dismiss_dialog(activity)

        row = self.ui.list_item(title, subtitle, on_click=choose, id="account_option", title_id="option_name",
                                subtitle_id="option_detail")
        row.padding = self.ui.pad(0, 8)
        return row

    def _review(self, activity: Activity) -> None:
        state = activity.state
        source = self.account(state["from_id"])
        destination = self._destination(state.get("to", ""))
        cents = parse_amount(state.get("amount", ""))
        error = ""
        if destination is None:
            error = "Choose where the money goes"
        elif cents is None or cents <= 0:
            error = "Enter an amount, like 25.00"
        elif source.credit:
            error = "Money can't be moved out of a credit card account"
        elif cents > source.balance_cents:
            error = f"That's more than the {money(source.balance_cents)} available in {source.name}"
        if error:
            state["error"] = error
            self.phone.invalidate()
            return
        self.phone.keyboard_shown = False
        self.open(REVIEW, from_id=source.id, to=state["to"], amount=cents, memo=state.get("memo", "").strip())

    # ------------------------------------------------------------ review and confirmation

    def review_screen(self, activity: Activity) -> View:
        ui = self.ui
        params = activity.params
        source, destination = self.account(params["from_id"]), self._destination(params["to"])
        assert destination is not None
        bar = ui.app_bar("Review transfer", up=self.finish)

        def line(label: str, value: str, id: str) -> View:
            return ui.list_item(label, value, id=id, title_id="review_label", subtitle_id="review_value")

        rows = [
            ui.text(money(params["amount"]), size=36, weight=500, align="center", id="review_amount",
                    padding=ui.pad(0, 16)),
            line("From", source.label, "review_from"), line("To", destination.label, "review_to"),
            line("When", "Today", "review_when"),
        ]
        if params.get("memo"):
            rows.append(line("Memo", params["memo"], "review_memo"))
        if activity.state.get("error"):
            rows.append(ui.text(activity.state["error"], size=14, color=ERROR, id="transfer_error"))
        confirm = ui.button("Confirm transfer", lambda: self._confirm(activity), id="confirm_button")
        confirm.style.bg = NAVY
        rows += [confirm, ui.button("Edit", self.finish, id="edit_button", variant="outlined"),
                 ui.text("Transfers to your own accounts are instant. Money sent to someone else can't be "
                         "recalled once confirmed.", size=12, color=ON_SURFACE_VARIANT, id="review_note")]
        body = ui.scroll(rows, key="review", cls="android.widget.ScrollView", gap=8, padding=ui.pad(16, 8))
        return ui.screen(bar, body, bottom=keyboard_inset(self.phone), id="review_root")

    def _confirm(self, activity: Activity) -> None:
        if activity.params["to"].startswith("payee:"):
            activity.state["pin"] = ""
            activity.state["focus_pin"] = True
            self.phone.focus_key = "confirm_pin_input"
            self.phone.keyboard_shown = True
            self.show_dialog(activity, "confirm_pin")
            return
        self._execute(activity)

    def confirm_pin_dialog(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state

        def typed(value: str) -> None:
            state["pin"] = "".join(c for c in value if c.isdigit())[:4]
            state.pop("pin_error", None)

        field_view = ui.edit_text("confirm_pin_input", state.get("pin", ""), hint="PIN", password=True,
                                  on_change=typed, on_submit=lambda: self._check_confirm_pin(activity))
        body: list[View] = [field_view]
        if state.get("pin_error"):
            body.append(ui.text(state["pin_error"], size=14, color=ERROR, id="pin_error"))
        payee = self._destination(activity.params["to"])
        return ui.dialog("Enter your PIN", f"To send {money(activity.params['amount'])} to "
                         f"{payee.name if payee else 'this payee'}, confirm with your PIN.",
                         [("Cancel", lambda: self._cancel_pin(activity)),
                          ("Confirm", lambda: self._check_confirm_pin(activity))], body=body)

    def _cancel_pin(self, activity: Activity) -> None:
        self.phone.keyboard_shown = False
        self.dismiss_dialog(activity)

    def _check_confirm_pin(self, activity: Activity) -> None:
        state = activity.state
        if state.get("pin") != self.pin:
            self.failed_attempts += 1
            state["pin"], state["pin_error"] = "", "Incorrect PIN. Try again."
            self.phone.invalidate()
            return
        self.failed_attempts = 0
        activity.dialog = None
        self.phone.keyboard_shown = False
        self._execute(activity)

    def _execute(self, activity: Activity) -> None:
        params = activity.params
        source, destination = self.account(params["from_id"]), self._destination(params["to"])
        assert destination is not None
        cents = params["amount"]
        if cents > source.balance_cents:       # the balance changed since the review (another transfer)
            activity.state["error"] = f"That's more than the {money(source.balance_cents)} available now"
            self.phone.invalidate()
            return
        reference = f"NW-{48213 + len(self.transfers)}"
        source.balance_cents -= cents
        source.transactions.insert(0, Transaction("Today", f"Transfer to {destination.name}", -cents))
        if isinstance(destination, Account):
            destination.balance_cents += cents
            destination.transactions.insert(0, Transaction("Today", f"From {source.name}", cents))
        self.transfers.append({"from": source.name, "to": destination.name, "amount_cents": cents,
                               "memo": params.get("memo", ""), "reference": reference})
        # The form and the review give way to the receipt: BACK from it returns to the accounts.
        self.finish()
        if self.phone.current_activity().name == TRANSFER:
            self.finish()
        self.open(COMPLETE, reference=reference, amount=cents, to=destination.name)

    def complete_screen(self, activity: Activity) -> View:
        ui = self.ui
        params = activity.params
        tick = View(cls="android.widget.ImageView", desc="Success", width=ui.dp(72), height=ui.dp(72),
                    align="center", style=Style(kind="icon_button", icon="check", bg=(205, 235, 214),
                                                fg=(20, 108, 46), radius=ui.dp(36)))
        done = ui.button("Done", self.finish, id="done_button")
        done.style.bg = NAVY
        body = ui.column([
            ui.spacer(48), tick,
            ui.text("Transfer complete", size=24, weight=500, align="center", id="complete_title"),
            ui.text(f"{money(params['amount'])} to {params['to']}", size=16, align="center", id="complete_summary"),
            ui.text(f"Reference {params['reference']}", size=14, color=ON_SURFACE_VARIANT, align="center",
                    id="complete_reference"),
            ui.spacer(weight=1), done,
        ], gap=12, padding=ui.pad(24, 16), weight=1)
        return ui.screen(None, body, id="complete_root")
