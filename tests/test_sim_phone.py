"""The virtual phone's core behaviour: navigation, focus and keyboard, dialogs, crashes, realism."""

from __future__ import annotations

import asyncio
import time

import pytest

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.config import REALISTIC, Faults, IdleStateError, PhoneConfig
from relay_desktop.sim.phone import IME_PACKAGE, VirtualPhone
from relay_desktop.sim.tasks.base import find, nodes
from relay_desktop.sim.views import View

KEY_BACK, KEY_HOME, KEY_ENTER, KEY_DEL, KEY_APP_SWITCH = 4, 3, 66, 67, 187


class FormApp(App):
    """A test app: a name field, a bottom button, a dialog and a handler that crashes."""

    package = "com.example.form"
    label = "Form"
    screens = {".MainActivity": "main"}
    dialogs = {"confirm": "confirm"}

    def reset(self) -> None:
        self.name = ""
        self.submitted: list[str] = []

    def main(self, activity: Activity) -> View:
        ui = self.ui
        body = ui.column([
            ui.edit_text("name", self.name, hint="Your name", on_change=self._set_name,
                         on_submit=lambda: self.submitted.append(self.name)),
            ui.button("Ask", lambda: self.show_dialog(activity, "confirm"), id="ask"),
            ui.button("Crash", self._crash, id="crash"),
            ui.spacer(weight=1),
            ui.button("Bottom", lambda: self.submitted.append("bottom"), id="bottom"),
        ], padding=ui.pad(16), gap=8)
        return ui.screen(ui.app_bar("Form"), body)

    def _set_name(self, value: str) -> None:
        self.name = value

    def _crash(self) -> None:
        raise RuntimeError("boom")

    def confirm(self, activity: Activity) -> View:
        return self.ui.dialog("Sure?", "Really?", [("Cancel", lambda: self.dismiss_dialog(activity)),
                                                   ("OK", lambda: self.submitted.append("ok"))])


@pytest.fixture
def phone() -> VirtualPhone:
    phone = VirtualPhone()
    phone.apps[FormApp.package] = FormApp(phone)
    phone.launch(FormApp.package)
    return phone


async def tap(phone: VirtualPhone, **query: str) -> None:
    node = find(await phone.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, query
    await phone.tap(*node.center)


async def test_focusing_a_field_shows_the_keyboard_which_covers_the_bottom(phone: VirtualPhone) -> None:
    bottom_before = find(await phone.dump_hierarchy(), id="bottom")
    assert bottom_before is not None
    await tap(phone, id="name")
    assert phone.keyboard_shown
    xml = await phone.dump_hierarchy()
    ime = [n for n in nodes(xml) if n.attrs["package"] == IME_PACKAGE]
    assert ime, "the keyboard is its own window in the dump"
    assert find(xml, id="name").attrs["focused"] == "true"  # type: ignore[union-attr]
    # The keyboard lies over the bottom button: a tap there types a key instead of pressing the button.
    top_of_keyboard = min(n.bounds[1] for n in ime)
    assert bottom_before.bounds[1] > top_of_keyboard
    await phone.tap(*bottom_before.center)
    assert "bottom" not in phone.apps[FormApp.package].submitted  # type: ignore[attr-defined]


async def test_typing_keys_and_submit(phone: VirtualPhone) -> None:
    app: FormApp = phone.apps[FormApp.package]  # type: ignore[assignment]
    await phone.input_text("Ada")  # nothing focused: the text goes nowhere, as on a phone
    assert app.name == ""
    await tap(phone, id="name")
    await phone.input_text("Adaa")
    await phone.press_key(KEY_DEL)
    await tap(phone, desc="q")  # the on-screen keyboard types too
    assert app.name == "Adaq"
    await phone.press_key(KEY_ENTER)
    assert app.submitted == ["Adaq"] and not phone.keyboard_shown


async def test_back_closes_keyboard_then_dialog_then_activity(phone: VirtualPhone) -> None:
    await tap(phone, id="name")
    await tap(phone, text="Ask")  # the keyboard stays up, the dialog opens over the app
    xml = await phone.dump_hierarchy()
    assert find(xml, text="Really?") is not None
    await phone.press_key(KEY_BACK)
    assert not phone.keyboard_shown and phone.current_activity().dialog == "confirm"
    await phone.press_key(KEY_BACK)
    assert phone.current_activity().dialog is None
    await phone.press_key(KEY_BACK)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")


async def test_dialog_is_modal_and_outside_tap_cancels_it(phone: VirtualPhone) -> None:
    app: FormApp = phone.apps[FormApp.package]  # type: ignore[assignment]
    await tap(phone, text="Ask")
    crash_button = find(await phone.dump_hierarchy(), id="crash")
    assert crash_button is not None  # still in the dump, under the dialog
    await phone.tap(540, 2200)  # outside the dialog card, over the app
    assert phone.current_activity().dialog is None
    assert phone.focused_activity() == (FormApp.package, ".MainActivity")
    await tap(phone, text="Ask")
    await tap(phone, text="OK")
    assert app.submitted == ["ok"]


async def test_a_crashing_handler_closes_the_app_like_android(phone: VirtualPhone) -> None:
    await tap(phone, text="Crash")
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    assert phone.toast is not None and phone.toast[0] == "Form keeps stopping"


async def test_home_recents_and_bringing_a_task_back(phone: VirtualPhone) -> None:
    phone.launch("com.android.settings")
    await phone.press_key(KEY_HOME)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    await phone.press_key(KEY_APP_SWITCH)
    xml = await phone.dump_hierarchy()
    assert find(xml, text="Settings") is not None and find(xml, text="Form") is not None
    await tap(phone, text="Form")
    assert phone.focused_activity() == (FormApp.package, ".MainActivity")


def test_unknown_package_and_activity_are_lookup_errors(phone: VirtualPhone) -> None:
    with pytest.raises(LookupError, match="not installed"):
        phone.launch("com.example.none")
    with pytest.raises(LookupError, match=r"\.Nope"):
        phone.launch("com.android.settings", ".Nope")
    with pytest.raises(LookupError, match="No Activity found"):
        phone.start_intent("com.example.UNHANDLED", None, None)


def test_config_rejects_impossible_phones() -> None:
    with pytest.raises(ValueError, match="smaller than any Android phone"):
        PhoneConfig(width=100, height=100)
    with pytest.raises(ValueError, match="':' or ';'"):
        PhoneConfig(model="a:b")


async def test_realistic_profile_takes_time_and_animations_block_dumps() -> None:
    phone = VirtualPhone(PhoneConfig(realism=REALISTIC), Faults(dump_fails_while_animating=True))
    started = time.monotonic()
    await phone.screencap_png()
    assert time.monotonic() - started >= 0.3
    phone.animate_for(5)
    with pytest.raises(IdleStateError):
        await asyncio.wait_for(phone.dump_hierarchy(), 5)


async def test_an_app_can_consume_back(phone: VirtualPhone) -> None:
    app: FormApp = phone.apps[FormApp.package]  # type: ignore[assignment]
    seen: list[str] = []

    def on_back(activity: Activity) -> bool:
        seen.append(activity.name)
        return len(seen) == 1  # consume the first BACK only

    app.on_back = on_back  # type: ignore[method-assign]
    await phone.press_key(KEY_BACK)
    assert phone.focused_activity() == (FormApp.package, ".MainActivity")
    await phone.press_key(KEY_BACK)
    assert seen == [".MainActivity", ".MainActivity"]
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
