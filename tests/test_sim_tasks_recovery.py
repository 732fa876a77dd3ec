"""The recovery tasks' obstacles are real: each one stops the naive path, as it would on a phone."""

from __future__ import annotations

from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, PhoneDriver
from relay_desktop.sim.tasks.base import find, tap_on


def test_every_recovery_kind_has_tasks() -> None:
    tags = {tag for task in ALL_TASKS for tag in task.tags}
    assert {"popup", "long_list", "keyboard", "wrong_app"} <= tags
    assert {app for task in ALL_TASKS for app in task.apps} >= {
        "com.android.settings", "com.google.android.apps.messaging", "com.android.chrome",
        "com.google.android.keep", "com.google.android.deskclock", "com.google.android.contacts", "com.relay.shop"}


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
