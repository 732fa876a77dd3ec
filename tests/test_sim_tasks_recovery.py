"""The recovery tasks' obstacles are real: each one stops the naive path, as it would on a phone."""

from __future__ import annotations

from collections import Counter

from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, PhoneDriver
from relay_desktop.sim.tasks.base import KEY_BACK, find, nodes, scroll_to, tap_on


def test_every_recovery_kind_has_tasks_in_more_than_one_app() -> None:
    tags = Counter(tag for task in ALL_TASKS for tag in task.tags)
    assert all(tags[kind] >= 2 for kind in ("popup", "long_list", "keyboard", "wrong_app")), tags
    for kind in ("popup", "long_list", "keyboard", "wrong_app"):
        apps = {app for task in ALL_TASKS if kind in task.tags for app in task.apps}
        assert len(apps) >= 2, (kind, apps)
    assert {app for task in ALL_TASKS for app in task.apps} >= {
        "com.android.launcher3", "com.android.settings", "com.google.android.apps.messaging", "com.android.chrome",
        "com.google.android.keep", "com.google.android.deskclock", "com.google.android.contacts", "com.relay.shop"}


def test_step_budgets_are_realistic() -> None:
    # About twice what a person needs plus a little: generous enough for one recovery, not for wandering.
    assert all(4 <= task.max_steps <= 30 for task in ALL_TASKS)


async def test_the_chat_features_prompt_is_a_modal_dialog() -> None:
    phone = VirtualPhone()
    task = TASKS_BY_ID["messages_prompt_text_bob"]
    task.setup(phone)
    driver = PhoneDriver(phone)
    await driver.launch_app("com.google.android.apps.messaging")
    xml = await phone.dump_hierarchy()
    assert find(xml, id="button1") is not None and find(xml, id="button2") is not None
    assert find(xml, text="Turn on chat features?") is not None
    await driver.tap(540, 2200)                      # outside the dialog: a modal prompt stays
    assert find(await phone.dump_hierarchy(), text="Not now") is not None


async def test_the_keyboard_covers_the_save_button() -> None:
    phone = VirtualPhone()
    TASKS_BY_ID["settings_rename_phone"].setup(phone)
    driver = PhoneDriver(phone)
    await driver.launch_app("com.android.settings")
    await tap_on(driver, text="About phone")
    await tap_on(driver, text="Device name")
    save = find(await phone.dump_hierarchy(), text="Save")
    assert save is not None
    await tap_on(driver, id="edit_device_name")
    await driver.type_text("X")
    assert phone.keyboard_shown
    await driver.tap(*save.center)                   # lands on the keyboard, not on Save
    assert phone.setting("global", "device_name") == phone.config.model
    assert phone.focused_activity() is not None and phone.focused_activity()[1].endswith("DeviceNameActivity")


async def test_the_wrong_app_is_in_front_at_the_start() -> None:
    for task_id, wanted in (("wrong_app_alarm_off", "com.google.android.deskclock"),
                            ("wrong_app_bluetooth_off", "com.android.settings")):
        phone = VirtualPhone()
        TASKS_BY_ID[task_id].setup(phone)
        front = phone.focused_activity()
        assert front is not None and front[0] != wanted and "launcher" not in front[0]


async def test_long_list_targets_are_not_on_the_first_screen() -> None:
    for task_id, package, query in (("shop_long_list_plant_pots", "com.relay.shop",
                                     {"desc": "Add Plant Pot Set to cart"}),
                                    ("contacts_favourite_zoe", "com.google.android.contacts", {"text": "Zoe Adams"})):
        phone = VirtualPhone()
        TASKS_BY_ID[task_id].setup(phone)
        await PhoneDriver(phone).launch_app(package)
        assert find(await phone.dump_hierarchy(), **query) is None, task_id


async def test_keeps_rating_prompt_is_a_dialog_window_over_the_opened_note() -> None:
    phone = VirtualPhone()
    TASKS_BY_ID["notes_rating_prompt"].setup(phone)
    driver = PhoneDriver(phone)
    await driver.launch_app("com.google.android.keep")
    assert find(await phone.dump_hierarchy(), id="alertTitle") is None      # not at launch: after a step
    await tap_on(driver, text="Packing list")
    assert [w.kind for w in phone.windows()][:2] == ["app", "dialog"]
    xml = await phone.dump_hierarchy()
    title, later, rate = find(xml, id="alertTitle"), find(xml, id="button2"), find(xml, id="button1")
    assert title is not None and title.attrs["text"] == "Enjoying Keep Notes?"
    assert later is not None and later.attrs["text"] == "Not now" and rate is not None and rate.attrs["text"] == "Rate"
    ids = [n.attrs.get("resource-id") for n in nodes(xml)]
    assert ids.index("android:id/button1") > ids.index("com.google.android.keep:id/edit_note_text")  # drawn over it
    body = find(xml, id="edit_note_text")
    assert body is not None
    await driver.tap(*body.center)                   # outside the dialog: cancels it, does not focus the note
    assert not phone.keyboard_shown and find(await phone.dump_hierarchy(), id="alertTitle") is None


async def test_the_keyboard_covers_the_promo_codes_apply_button() -> None:
    phone = VirtualPhone()
    TASKS_BY_ID["shop_promo_code"].setup(phone)
    driver = PhoneDriver(phone)
    await driver.launch_app("com.relay.shop")
    await tap_on(driver, text="No thanks")
    await driver.tap(*(await scroll_to(driver, desc="Add Phone Case to cart")).center)
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Add promo code")
    assert phone.keyboard_shown                      # the code field takes focus as the screen opens
    await driver.type_text("WELCOME10")
    app = next(w for w in phone.windows() if w.kind == "app")
    button = next(v for v in app.root.walk() if v.id == "apply_promo")
    keyboard = next(w for w in phone.windows() if w.kind == "ime")
    assert keyboard.frame.contains(*button.bounds.center)
    await driver.tap(*button.bounds.center)          # lands on the keyboard
    assert phone.apps["com.relay.shop"].promo == ""  # type: ignore[attr-defined]
    assert phone.focused_activity() == ("com.relay.shop", ".PromoCodeActivity")
    await driver.press_key(KEY_BACK)                 # the keyboard goes; Apply is reachable
    await tap_on(driver, text="Apply")
    assert phone.apps["com.relay.shop"].promo == "WELCOME10"  # type: ignore[attr-defined]


async def test_bins_out_is_more_than_two_screens_down() -> None:
    phone = VirtualPhone()
    TASKS_BY_ID["clock_long_list_bins"].setup(phone)
    driver = PhoneDriver(phone)
    await driver.launch_app("com.google.android.deskclock")
    assert find(await phone.dump_hierarchy(), text="Bins out") is None
    await scroll_to(driver, text="Bins out", max_swipes=20)
    app = next(w for w in phone.windows() if w.kind == "app")
    alarms = next(v for v in app.root.walk() if v.id == "alarm_recycler_view")
    assert phone.current_activity().scroll["alarm_recycler_view"] >= 2 * alarms.bounds.height


async def test_the_shop_is_in_front_of_a_texting_task() -> None:
    phone = VirtualPhone()
    TASKS_BY_ID["wrong_app_text_carol"].setup(phone)
    assert phone.focused_activity() == ("com.relay.shop", ".MainActivity")
    assert find(await phone.dump_hierarchy(), text="No thanks") is not None   # with its promo up, too
