"""Chaos mode: the virtual phone interrupts a task the way a real phone does, reproducibly for a seed.

``relay-desktop sim --chaos SEED`` (and ``bench``/``run --sim``) attaches a :class:`Chaos` to the phone. Then:

* each app's first launch (after its data was cleared, as ``pm clear`` revokes runtime permissions) shows the
  runtime permission request of ``com.android.permissioncontroller`` ("Allow Messages to send you
  notifications?");
* after a seeded number of input events comes a heads-up notification (an incoming text), a low-battery warning
  ("Turn on Battery Saver?", once a task), or the app hangs on its next tap: "<App> isn't responding", whose
  "Wait" lets the tapped action finish and whose "Close app" kills the app and loses it;
* an app coming to the front may show its "What's new" sheet or Google Play's in-app review card, and Chrome's
  next site page may ask for cookie consent (browser_cookies.py);
* Gboard shows its suggestion strip, whose candidates replace the word being typed when tapped.

Every decision comes from one ``random.Random`` seeded with the seed and the task (:meth:`Chaos.begin`), and
depends only on the sequence of events, so a seed replays the same interruptions at the same moments. Nothing
here is visible to an agent but the screen: the dialogs dump and draw as Android 14's do.

Tasks may also script interruptions of their own, chaos or not (:func:`scripted`): a heads-up while typing in
an app, a hang on its Save button, a permission request on its launch. ``fresh_start`` forgets them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relay_desktop.sim.app import CHAOS_DIALOG
from relay_desktop.sim.gboard_suggestions import candidates
from relay_desktop.sim.interruption_views import anr_window, permission_window, review_window, whats_new_sheet
from relay_desktop.sim.system_dialog import SystemDialog

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity, App
    from relay_desktop.sim.phone import VirtualPhone
    from relay_desktop.sim.views import View, Window

__all__ = ["KINDS", "Chaos", "begin_task", "enable", "scripted"]

log = logging.getLogger(__name__)

KINDS = ("permission", "heads_up", "not_responding", "launch_prompt", "cookie_banner", "suggestions", "low_battery")
MESSAGES, CHROME, SYSTEM_UI = "com.google.android.apps.messaging", "com.android.chrome", "com.android.systemui"
NOTIFY = "send you notifications"
# What each app asks on its first launch (Android 13+ apps ask for POST_NOTIFICATIONS; a player for its media).
PERMISSIONS: dict[str, str] = {
    MESSAGES: NOTIFY, CHROME: NOTIFY, "com.google.android.keep": NOTIFY, "com.google.android.deskclock": NOTIFY,
    "com.relay.shop": NOTIFY, "com.northwind.bank": NOTIFY, "app.tempo.music": "access music and audio on this device",
}
# Windows whose taps never hang: the system's own, the launcher's and the keyboard's.
NEVER_HANG = frozenset({"com.android.launcher3", SYSTEM_UI, "android", "com.android.permissioncontroller",
                        "com.android.vending", "com.google.android.inputmethod.latin"})
HEADS_UP_MESSAGES = (("Mom", "Call me when you get a chance"), ("Alex Rivera", "Are we still on for Friday?"),
                     ("+1 555-0166", "Your package arrives today between 2 and 4 pm"),
                     ("Priya", "Running 5 min late, sorry!"), ("Jordan", "Did you see the game last night?"))
WHATS_NEW = ("A fresh look that follows your wallpaper's colours", "Find things faster with the new search",
             "Bug fixes and performance improvements")
LOW_BATTERY = 15                 # percent: Android's default low-battery warning level
FIRST_GAP, GAP = (3, 8), (4, 9)  # input events before the first surprise, and between surprises
PROMPT_CHANCE, COOKIE_CHANCE = 0.3, 0.5


@dataclass
class Trigger:
    """An interruption a task scripted: ``kind`` is "inputs" (after ``after`` input events), "when" (after the
    first input after which ``condition`` holds: text typed into an app, a pop-up closed), "click" (a tap on the
    control labelled ``label`` in ``package`` hangs) or "launch" (``package`` shows ``prompt``, "whats_new" or
    "review", when it comes to the front)."""

    kind: str
    package: str = ""
    after: int = 0
    label: str = ""
    prompt: str = ""
    action: Callable[[], None] | None = None
    condition: Callable[[], bool] | None = None    # "when": fires once this holds after an input


class Chaos:
    def __init__(self, phone: VirtualPhone, seed: int | None = None) -> None:
        self.phone = phone
        self.seed = seed                     # None: only what a task scripted
        self.permissions: dict[str, str] = {}   # package → "granted", "denied" or "dismissed" (BACK)
        self.reviews: dict[str, int] = {}       # package → stars submitted on Play's review card
        self.shown: list[str] = []              # every interruption, in order (what a seed reproduces)
        self.suggestions_on = seed is not None
        self._asked: set[str] = set()           # asked for its permission since its data was cleared
        self._ask: set[str] = set()             # scripted: these ask on first launch even without a seed
        self._triggers: list[Trigger] = []
        self._front = phone.current_activity().app.package
        self._held: tuple[str, Callable[[], None]] | None = None   # the tap a hung app has not handled yet
        self._hang_next = False
        self._stashed: SystemDialog | None = None
        self._queued: list[tuple[SystemDialog, str]] = []   # system dialogs waiting for the one up to close
        self._keyboard_was = False
        self._stars = 0
        self.inputs = 0
        self.begin("")

    # ------------------------------------------------------------ life cycle

    def begin(self, label: str) -> None:
        """Start a task's chaos: reseed from the seed and the task, so each task's interruptions are its own."""
        self.random = random.Random(f"{self.seed}/{label}")
        self._next_at = self.inputs + self.random.randint(*FIRST_GAP)
        self._battery_warned = False
        self._suggested = False
        self._prompted: set[str] = set()

    def forget(self) -> None:
        """A new task starts (``fresh_start``): scripted interruptions end, the phone was charged meanwhile."""
        self._triggers.clear()
        self._ask.clear()
        self._held, self._hang_next, self._stashed = None, False, None
        self._queued.clear()
        self.suggestions_on = self.seed is not None
        self.phone.battery_level = 100
        self.inputs = 0
        self.begin("")
        if self.seed is None:
            self.phone.chaos = None          # only a task's scripted interruptions had it on

    def app_cleared(self, package: str) -> None:
        for kept in (self.permissions, self.reviews):
            kept.pop(package, None)
        self._asked.discard(package)

    # ------------------------------------------------------------ what tasks script

    def after_inputs(self, count: int, action: Callable[[], None]) -> None:
        self._triggers.append(Trigger("inputs", after=self.inputs + count, action=action))

    def when_typing(self, package: str, action: Callable[[], None]) -> None:
        self.when(lambda: self._typing_in(package), action)

    def when(self, condition: Callable[[], bool], action: Callable[[], None]) -> None:
        """``action`` once, after the first input event after which ``condition`` holds."""
        self._triggers.append(Trigger("when", condition=condition, action=action))

    def hang_on(self, package: str, label: str) -> None:
        self._triggers.append(Trigger("click", package=package, label=label))

    def prompt_on_launch(self, package: str, prompt: str) -> None:
        self._triggers.append(Trigger("launch", package=package, prompt=prompt))

    def ask_on_launch(self, package: str) -> None:
        self._ask.add(package)

    # ------------------------------------------------------------ events from the phone

    def after_input(self) -> None:
        self.inputs += 1
        for trigger in list(self._triggers):
            due = (trigger.kind == "inputs" and self.inputs >= trigger.after) or \
                  (trigger.kind == "when" and trigger.condition is not None and trigger.condition())
            if due and trigger.action is not None:
                self._triggers.remove(trigger)
                trigger.action()
        if self.seed is not None and self.inputs >= self._next_at:
            self._next_at = self.inputs + self.random.randint(*GAP)
            kinds = ["heads_up", "not_responding"] + ([] if self._battery_warned else ["low_battery"])
            kind = self.random.choice(kinds)
            if kind == "heads_up":
                self.heads_up(*self.random.choice(HEADS_UP_MESSAGES))
            elif kind == "low_battery":
                self.low_battery()
            else:
                self._hang_next = True       # the app's next tap is the one it hangs on

    def navigated(self) -> None:
        front = self.phone.current_activity().app.package
        dialog = self.phone.system_dialog
        # A permission request or a review card belongs to its app: it hides while another is in front.
        if dialog is not None and dialog.owner not in (None, front):
            self._stashed, self.phone.system_dialog = dialog, None
        elif dialog is None and self._stashed is not None and self._stashed.owner == front:
            self.phone.system_dialog, self._stashed = self._stashed, None
        if front != self._front:
            self._front = front
            self._launched(front)

    def _launched(self, package: str) -> None:
        if package in NEVER_HANG:
            return
        if package == CHROME and self.seed is not None and self.random.random() < COOKIE_CHANCE:
            chrome = self.phone.apps[CHROME]
            if hasattr(chrome, "cookie_banner_pending"):
                chrome.cookie_banner_pending = True     # the next site page loaded asks for consent
                self.shown.append("cookie banner")
        request = PERMISSIONS.get(package)
        if request and package not in self._asked and (self.seed is not None or package in self._ask):
            self._asked.add(package)
            self._ask_permission(package, request)
        scripted = next((t for t in self._triggers if t.kind == "launch" and t.package == package), None)
        if scripted is not None:
            self._triggers.remove(scripted)
            self._prompt(package, scripted.prompt)
        elif self.seed is not None and package not in self._prompted and self.random.random() < PROMPT_CHANCE:
            self._prompt(package, self.random.choice(("whats_new", "review")))

    def hangs(self, window: Window, target: View) -> bool:
        """Whether the app hangs on this tap: the click is held and "isn't responding" comes up instead."""
        package = window.package
        if package in NEVER_HANG or window.kind not in ("app", "dialog") or self.phone.system_dialog is not None:
            return False
        # A row's label is often its children's text ("Bob Martinez" on a conversation row).
        labels = {v.text for v in target.walk()} | {target.desc}
        trigger = next((t for t in self._triggers if t.kind == "click" and t.package == package
                        and t.label in labels), None)
        if trigger is not None:
            self._triggers.remove(trigger)
        elif self._hang_next:
            self._hang_next = False
        else:
            return False
        assert target.on_click is not None
        self._held = (package, target.on_click)
        self._not_responding(package)
        return True

    def _typing_in(self, package: str) -> bool:
        if self._front != package:
            return False
        field = self.phone.input.focused_field()
        return field is not None and bool(field.text)

    # ------------------------------------------------------------ the interruptions

    def heads_up(self, sender: str, text: str) -> None:
        """An incoming text's heads-up card (only the notification: the checkers' data stays as it was)."""
        self.phone.notifications.post(MESSAGES, sender, text)
        self.shown.append(f"heads-up {sender}")

    def low_battery(self) -> None:
        """The battery drops to 15%: SystemUI's warning, as Android 14 words it, with its two actions."""
        self._battery_warned = True
        self.phone.battery_level = LOW_BATTERY

        def battery_saver_settings() -> None:
            try:
                self.phone.start_intent("android.settings.BATTERY_SAVER_SETTINGS", None, None)
            except LookupError:
                self.phone.launch("com.android.settings")

        self.phone.notifications.post(
            SYSTEM_UI, "Turn on Battery Saver?",
            f"You have {LOW_BATTERY}% battery left. Battery Saver turns on Dark theme, restricts background "
            "activity, and delays notifications.", label="Settings", on_open=battery_saver_settings,
            actions=(("No thanks", lambda: None),
                     ("Turn on", lambda: self.phone.put_setting("global", "low_power", "1"))))
        self.shown.append("low battery")

    def _ask_permission(self, package: str, request: str) -> None:
        label = self.phone.apps[package].label

        def answer(choice: str) -> None:
            self.permissions[package] = choice
            self._close()

        build = permission_window(self.phone.kit, label, request, lambda: answer("granted"), lambda: answer("denied"))
        # BACK or a tap outside dismisses the request without an answer (Android does not count it as a denial).
        self._show(SystemDialog(f"Allow {label} to {request}?", [], build=build, owner=package, blocks_input=True,
                                outside_cancels=True, on_cancel=lambda: answer("dismissed")),
                   f"permission {package}")

    def _not_responding(self, package: str) -> None:
        label = self.phone.apps[package].label

        def close() -> None:
            self._held = None
            self._close()
            self.phone.force_stop(package)   # what it was doing is lost with it

        def wait() -> None:
            held, self._held = self._held, None
            self._close()
            if held is not None:
                try:
                    held[1]()
                except Exception:            # the app's own handler failing is the app crashing, as on input
                    log.exception("%s crashed finishing a held tap", package)
                    self.phone.crash(package)
            self.phone.invalidate()

        build = anr_window(self.phone.kit, label, close, wait)
        self._show(SystemDialog(f"{label} isn't responding", [], build=build, cancelable=False,
                                blocks_input=True), f"not responding {package}")

    def prompt(self, package: str, prompt: str) -> None:
        """Show ``package``'s "whats_new" sheet or Google Play's "review" card for it now."""
        self._prompt(package, prompt)

    def _prompt(self, package: str, prompt: str) -> None:
        self._prompted.add(package)
        if prompt == "review":
            self._stars = 0
            self._show(SystemDialog("Rate this app", [], build=self._review_card(package), owner=package),
                       f"review {package}")
            return
        activity = self.phone.current_activity()
        if activity.dialog is None:
            activity.dialog = f"{CHAOS_DIALOG}whats_new"
            self.shown.append(f"what's new {package}")

    def _review_card(self, package: str) -> Callable[..., Window]:
        app = self.phone.apps[package]

        def rate(stars: int) -> None:
            self._stars = stars
            self.phone.invalidate()

        def submit() -> None:
            self.reviews[package] = self._stars
            self._close()
            self.phone.show_toast("Thanks for your review")

        # Rebuilt on every frame, so the stars chosen so far show.
        return lambda frame: review_window(self.phone.kit, app, self._stars, rate, self._close, submit)(frame)

    def app_dialog(self, app: App, activity: Activity) -> View | None:
        """The sheet chaos put over an activity (``App.build_dialog`` asks here for ``chaos:`` dialogs)."""
        if activity.dialog != f"{CHAOS_DIALOG}whats_new":
            return None
        return whats_new_sheet(self.phone.kit, app.label, WHATS_NEW, lambda: app.dismiss_dialog(activity))

    def suggestions(self, windows: list[Window]) -> list[str]:
        """Gboard's candidates for the focused field's last word (none for a password, as Gboard does)."""
        if not self.suggestions_on:
            return []
        for window in windows:
            for view in window.root.walk():
                if view.focused and view.editable:
                    words = [] if view.password else candidates(view.text)
                    if words and not self._suggested:
                        self._suggested = True
                        self.shown.append("suggestions")
                    return words
        return []

    # ------------------------------------------------------------ showing and closing

    def _show(self, dialog: SystemDialog, what: str) -> None:
        if self.phone.system_dialog is not None:
            self._queued.append((dialog, what))     # one at a time: a review card waits for the permission
            return
        # The dialog takes the input focus, so the keyboard goes (and comes back with the app's focus).
        self._keyboard_was = self.phone.keyboard_shown
        self.phone.keyboard_shown = False
        self.phone.show_system_dialog(dialog)
        self.shown.append(what)

    def _close(self) -> None:
        self.phone.system_dialog = None
        self.phone.keyboard_shown = self._keyboard_was and self.phone.focus_key is not None
        self.phone.invalidate()
        if self._queued:
            self._show(*self._queued.pop(0))


def enable(phone: VirtualPhone, seed: int) -> Chaos:
    """Chaos mode on ``phone`` with ``seed`` (``--chaos SEED``)."""
    phone.chaos = Chaos(phone, seed)
    return phone.chaos


def scripted(phone: VirtualPhone) -> Chaos:
    """The phone's chaos, made (with no seed: nothing but what is scripted) when chaos mode is off."""
    if phone.chaos is None:
        phone.chaos = Chaos(phone)
    return phone.chaos


def begin_task(phone: VirtualPhone, label: str) -> None:
    """A harness (the demo, the bench, ``run --sim``) starts a task: its interruptions come from its own seed."""
    if phone.chaos is not None:
        phone.chaos.begin(label)
