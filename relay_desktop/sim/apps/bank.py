"""Northwind Bank: a banking app that protects every screen, as banking apps do (FLAG_SECURE).

``screencap`` and the scrcpy stream show black while it is in front (the phone blacks out any frame with one
of its windows), but accessibility still works: ``uiautomator dump`` lists its elements. What an agent meets
in it is what a real banking app asks: a PIN to sign in (attempts counted, locked after five wrong ones),
accounts with balances, and transfers reviewed on a confirmation screen, with the PIN asked again before money
goes to another person. The transfer flow is in :mod:`relay_desktop.sim.apps.bank_transfer`.

State lives on the app (:attr:`NorthwindBank.accounts`, :attr:`NorthwindBank.transfers`) for task checkers.
"""

from __future__ import annotations

from relay_desktop.sim.app import Activity
from relay_desktop.sim.apps.bank_transfer import (
    ACCOUNT,
    ACCOUNTS,
    COMPLETE,
    NAVY,
    REVIEW,
    SIGN_IN,
    TRANSFER,
    Account,
    BankTransfers,
    Payee,
    Transaction,
    money,
)
from relay_desktop.sim.apps.contacts import autofocus, dialog, keyboard_inset
from relay_desktop.sim.ui import ERROR, ON_SURFACE_VARIANT, SURFACE_CONTAINER
from relay_desktop.sim.views import Style, View

__all__ = ["DEFAULT_PIN", "PACKAGE", "NorthwindBank"]

PACKAGE = "com.northwind.bank"
DEFAULT_PIN = "4071"        # the user's PIN (a task hands it to the agent as a secret, never in its goal)
MAX_ATTEMPTS = 5            # wrong PINs before the app locks sign-in, as banks do
CUSTOMER = "Sam"


def _seed_accounts() -> list[Account]:
    return [
        Account(1, "Everyday Checking", "4821", 241_856, [
            Transaction("Nov 24", "Green Basket Grocery", -8_412), Transaction("Nov 22", "Payroll — Alder & Finch",
                                                                              312_500),
            Transaction("Nov 21", "City Transit pass", -9_800), Transaction("Nov 19", "Oak Street Properties",
                                                                            -185_000),
            Transaction("Nov 18", "Corner Coffee", -645)]),
        Account(2, "High-Yield Savings", "7730", 1_290_510, [
            Transaction("Nov 01", "Interest paid", 4_213), Transaction("Oct 28", "From Everyday Checking", 50_000)]),
        Account(3, "Travel Rewards Visa", "0094", -61_237, [
            Transaction("Nov 23", "SkyWays Air", -42_860), Transaction("Nov 20", "Harbor Hotel", -18_377)],
            credit=True),
    ]


class NorthwindBank(BankTransfers):
    package = PACKAGE
    label = "Northwind Bank"
    icon = "lock"
    color = NAVY
    main_activity = SIGN_IN
    system = False
    secure = True           # FLAG_SECURE on every window: screenshots and the screen stream come out black
    version_name = "8.14.2"
    version_code = 81402
    screens = {SIGN_IN: "sign_in", ACCOUNTS: "accounts_screen", ACCOUNT: "account_screen",
               TRANSFER: "transfer_screen", REVIEW: "review_screen", COMPLETE: "complete_screen"}
    dialogs = {"forgot": "forgot_dialog", "sign_out": "sign_out_dialog", "from": "from_dialog", "to": "to_dialog",
               "confirm_pin": "confirm_pin_dialog"}

    def reset(self) -> None:
        self.pin = DEFAULT_PIN
        self.accounts: list[Account] = _seed_accounts()
        self.payees: list[Payee] = [Payee("Dana Whitfield", "3391"), Payee("Oak Street Properties", "1180")]
        self.transfers: list[dict[str, object]] = []
        self.failed_attempts = 0
        self.sign_ins = 0
        self.signed_out = False

    # ------------------------------------------------------------ sign in

    @property
    def locked(self) -> bool:
        return self.failed_attempts >= MAX_ATTEMPTS

    def sign_in(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state
        state.setdefault("pin", "")
        if not self.locked:
            autofocus(activity, "pin_input")
        logo = View(cls="android.widget.ImageView", id="logo", desc="Northwind Bank", width=ui.dp(64),
                    height=ui.dp(64), align="center",
                    style=Style(kind="icon_button", icon="lock", bg=NAVY, fg=(255, 255, 255), radius=ui.dp(16)))
        items: list[View] = [
            ui.spacer(32), logo,
            ui.text("Northwind Bank", size=24, weight=600, align="center", id="brand_name"),
            ui.text(f"Welcome back, {CUSTOMER}", size=16, color=ON_SURFACE_VARIANT, align="center",
                    id="welcome_text"),
            ui.spacer(16),
        ]
        if self.locked:
            items.append(ui.text("Sign-in is locked after too many incorrect PINs. Call 1-800-555-0199 to unlock "
                                 "it.", size=14, color=ERROR, id="pin_error", align="center"))
        else:
            pin = ui.edit_text("pin_input", state["pin"], hint="Enter your 4-digit PIN", password=True,
                               on_change=self._pin_typed(activity), on_submit=lambda: self._check_pin(activity))
            items.append(pin)
            if state.get("error"):
                items.append(ui.text(state["error"], size=14, color=ERROR, id="pin_error"))
            button = ui.button("Sign in", lambda: self._check_pin(activity), id="sign_in_button")
            button.style.bg = NAVY
            items.append(button)
        items.append(ui.button("Forgot PIN?", lambda: self.show_dialog(activity, "forgot"), id="forgot_pin",
                               variant="text"))
        body = ui.scroll(items, key="sign_in_scroll", cls="android.widget.ScrollView", gap=12,
                         padding=ui.pad(24, 16))
        return ui.screen(None, body, bottom=keyboard_inset(self.phone), id="sign_in_root")

    def _pin_typed(self, activity: Activity) -> object:
        def typed(value: str) -> None:
            # A PIN field takes digits only, up to four of them (inputType numberPassword, maxLength 4).
            activity.state["pin"] = "".join(c for c in value if c.isdigit())[:4]
            activity.state.pop("error", None)
        return typed

    def _check_pin(self, activity: Activity) -> None:
        state = activity.state
        entered = state.get("pin", "")
        if self.locked:
            return
        if len(entered) != 4:
            state["error"] = "Enter all 4 digits of your PIN"
        elif entered != self.pin:
            self.failed_attempts += 1
            left = MAX_ATTEMPTS - self.failed_attempts
            state["error"] = (f"Incorrect PIN. {left} attempt{'s' if left != 1 else ''} left." if left else "")
            state["pin"] = ""
        else:
            self.failed_attempts = 0
            self.sign_ins += 1
            self.phone.keyboard_shown = False
            self.finish()               # the sign-in screen gives way: BACK from the accounts leaves the app
            self.open(ACCOUNTS)
            return
        self.phone.invalidate()

    def forgot_dialog(self, activity: Activity) -> View:
        return dialog(self.ui, "Forgot your PIN?", "For your security we can't reset a PIN in the app. Call us at "
                      "1-800-555-0199, any time.", [("OK", lambda: self.dismiss_dialog(activity))])

    # ------------------------------------------------------------ accounts

    def accounts_screen(self, activity: Activity) -> View:
        ui = self.ui
        sign_out = ui.icon_button("close", "Sign out", lambda: self.show_dialog(activity, "sign_out"),
                                  id="sign_out_button")
        bar = ui.app_bar(f"Good morning, {CUSTOMER}", actions=[sign_out])
        cards: list[View] = [self._account_card(a) for a in self.accounts]
        transfer = ui.button("Transfer money", lambda: self.open(TRANSFER), id="transfer_button")
        transfer.style.bg = NAVY
        cards += [transfer, ui.text("Balances include pending transactions.", size=12, color=ON_SURFACE_VARIANT,
                                    id="balances_note", padding=ui.pad(4, 0))]
        body = ui.scroll(cards, key="accounts_list", id="accounts_list", gap=12, padding=ui.pad(16, 8))
        return ui.screen(bar, body, id="accounts_root")

    def _account_card(self, account: Account) -> View:
        ui = self.ui
        caption = "Current balance" if account.credit else "Available balance"
        return ui.card([
            ui.text(account.name, size=16, weight=500, id="account_name"),
            ui.text(f"••{account.last4}", size=14, color=ON_SURFACE_VARIANT, id="account_number"),
            ui.text(money(account.balance_cents), size=28, weight=500, id="account_balance"),
            ui.text(caption, size=12, color=ON_SURFACE_VARIANT, id="balance_caption"),
        ], on_click=lambda: self.open(ACCOUNT, account_id=account.id), id="account_card", key=f"acct:{account.id}",
            bg=SURFACE_CONTAINER)

    def account_screen(self, activity: Activity) -> View:
        ui = self.ui
        account = self.account(activity.params.get("account_id"))
        bar = ui.app_bar(account.name, up=self.finish)
        rows: list[View] = [
            ui.text(money(account.balance_cents), size=34, weight=500, id="account_balance",
                    padding=ui.pad(16, 8, 16, 0)),
            ui.text(f"{'Current' if account.credit else 'Available'} balance · ••{account.last4}", size=14,
                    color=ON_SURFACE_VARIANT, id="account_number", padding=ui.pad(16, 0, 16, 8)),
            ui.text("Recent activity", size=14, weight=600, id="activity_header", padding=ui.pad(16, 8)),
        ]
        for tx in account.transactions:
            amount = ui.text(money(tx.amount_cents), size=16, id="transaction_amount")
            rows.append(ui.list_item(tx.description, tx.date, trailing=amount, id="transaction_row",
                                     title_id="transaction_description", subtitle_id="transaction_date"))
        body = ui.scroll(rows, key="transactions", id="transactions")
        return ui.screen(bar, body, id="account_root")

    def sign_out_dialog(self, activity: Activity) -> View:
        return dialog(self.ui, "Sign out?", "You'll need your PIN to sign in again.",
                      [("Cancel", lambda: self.dismiss_dialog(activity)), ("Sign out", self._sign_out)])

    def _sign_out(self) -> None:
        self.signed_out = True
        self.phone.force_stop(self.package)
