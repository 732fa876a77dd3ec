"""Keep Notes on the virtual phone: its tasks (checker, oracle, wrong paths) and the behaviour an agent
relies on, observed only through the hierarchy dump and input events."""

from __future__ import annotations

import pytest

from relay_desktop.sim.apps.keep import BROWSE, EDITOR, PACKAGE, SEED, KeepNotes
from relay_desktop.sim.phone import IME_PACKAGE, VirtualPhone
from relay_desktop.sim.tasks.base import KEY_BACK, PhoneDriver, Task, find, nodes, tap_on, type_into
from relay_desktop.sim.tasks.notes_tasks import TASKS

TASKS_BY_ID = {task.id: task for task in TASKS}
SEED_TITLES = [title for title, _ in SEED]


@pytest.fixture
def phone() -> VirtualPhone:
    phone = VirtualPhone()
    # Registered here until the app joins BUILTIN_APPS.
    phone.apps[KeepNotes.package] = KeepNotes(phone)
    return phone


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def keep(phone: VirtualPhone) -> KeepNotes:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


async def texts_with_id(driver: PhoneDriver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "") == f"{PACKAGE}:id/{id}"]


async def open_new_note(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="New note")
    assert phone.focused_activity() == (PACKAGE, EDITOR)


# ---------------------------------------------------------------- tasks


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_task_fails_before_and_passes_after_its_oracle(phone: VirtualPhone, task: Task) -> None:
    task.setup(phone)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    before = task.check(phone)
    assert not before and before.detail
    await task.oracle(PhoneDriver(phone))
    after = task.check(phone)
    assert after, after.detail


def test_task_ids_are_unique_and_goals_are_sentences() -> None:
    assert len(TASKS_BY_ID) == len(TASKS) >= 2
    assert {"notes_create_groceries", "notes_delete_packing"} <= set(TASKS_BY_ID)
    assert all(task.goal[0].isupper() and task.apps == (PACKAGE,) for task in TASKS)


async def test_setup_restores_the_seeded_notes(phone: VirtualPhone) -> None:
    keep(phone).notes.clear()
    TASKS_BY_ID["notes_create_groceries"].setup(phone)
    assert [n.title for n in keep(phone).notes] == SEED_TITLES


async def test_groceries_note_without_text_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["notes_create_groceries"]
    task.setup(phone)
    await open_new_note(phone, driver)
    await type_into(driver, "Groceries", id="editable_title")
    await tap_on(driver, desc="Navigate up")
    result = task.check(phone)
    assert not result
    assert "lacks milk, eggs, bread" in result.detail


async def test_two_groceries_notes_fail(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["notes_create_groceries"]
    task.setup(phone)
    await task.oracle(driver)
    await task.oracle(driver)
    result = task.check(phone)
    assert not result
    assert "2 notes are titled Groceries" in result.detail


async def test_deleting_another_note_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["notes_delete_packing"]
    task.setup(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="Book ideas")
    await tap_on(driver, desc="Delete")
    await tap_on(driver, text="Delete", id="button1")
    assert [n.title for n in keep(phone).notes] == ["Packing list", "Wi-Fi password for guests"]
    assert not task.check(phone)


async def test_deleting_packing_and_another_note_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["notes_delete_packing"]
    task.setup(phone)
    await task.oracle(driver)
    await tap_on(driver, text="Book ideas")
    await tap_on(driver, desc="Delete")
    await tap_on(driver, text="Delete", id="button1")
    result = task.check(phone)
    assert not result
    assert "Book ideas" in result.detail


async def test_cancelling_the_delete_dialog_keeps_the_note(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="Packing list")
    await tap_on(driver, desc="Delete")
    assert find(await driver.dump_hierarchy(), text="Delete this note?") is not None
    await tap_on(driver, text="Cancel")
    assert phone.focused_activity() == (PACKAGE, EDITOR)
    assert [n.title for n in keep(phone).notes] == SEED_TITLES


async def test_appending_the_new_password_without_removing_the_old_fails(phone: VirtualPhone,
                                                                        driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["notes_change_wifi_password"]
    task.setup(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="Wi-Fi password for guests")
    await type_into(driver, " sunflower42", id="edit_note_text")
    await driver.press_key(KEY_BACK)
    await driver.press_key(KEY_BACK)
    result = task.check(phone)
    assert not result
    assert "old password" in result.detail


# ---------------------------------------------------------------- behaviour


async def test_list_shows_seeded_cards_with_titles_and_previews(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    assert sorted(await texts_with_id(driver, "index_note_title")) == sorted(SEED_TITLES)
    previews = await texts_with_id(driver, "index_note_text_description")
    assert "Network: Maple-Guest\nPassword: bluebird2024" in previews
    xml = await driver.dump_hierarchy()
    assert len([n for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/browse_note_interior_content")]) == 3
    assert find(xml, id="new_note_button", desc="New note") is not None


async def test_search_filters_notes_by_title_and_text(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await type_into(driver, "pass", id="open_search_bar_text_view")
    # "Packing list" mentions its Passport; the Wi-Fi note has "password" in its title and text.
    assert sorted(await texts_with_id(driver, "index_note_title")) == ["Packing list", "Wi-Fi password for guests"]
    await tap_on(driver, desc="Clear search")
    await type_into(driver, "LIGHTHOUSE", id="open_search_bar_text_view")
    assert await texts_with_id(driver, "index_note_title") == ["Book ideas"]
    await phone.input_text("zzz")
    assert await texts_with_id(driver, "index_note_title") == []
    assert find(await driver.dump_hierarchy(), text="No matching results") is not None


async def test_new_note_focuses_the_text_with_the_keyboard_up(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_new_note(phone, driver)
    assert phone.keyboard_shown and phone.focus_key == "edit_note_text"
    xml = await driver.dump_hierarchy()
    assert f'package="{IME_PACKAGE}"' in xml
    assert find(xml, id="editable_title", text="Title") is not None
    assert find(xml, id="edit_note_text", text="Note") is not None


async def test_tapping_a_field_shows_the_keyboard(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="Book ideas")
    assert not phone.keyboard_shown
    await tap_on(driver, id="editable_title")
    assert phone.keyboard_shown and phone.focus_key == "editable_title"
    assert f'package="{IME_PACKAGE}"' in await driver.dump_hierarchy()


async def test_back_discards_an_empty_note(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_new_note(phone, driver)
    await driver.type_text("x")
    assert len(keep(phone).notes) == 4
    await driver.press_key(67)  # DEL: the note is empty again
    await driver.press_key(KEY_BACK)  # hides the keyboard
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    assert [n.title for n in keep(phone).notes] == SEED_TITLES


async def test_back_keeps_a_note_with_text_first_in_the_list(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_new_note(phone, driver)
    await driver.type_text("Call the plumber")
    await driver.press_key(KEY_BACK)
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    first = keep(phone).notes[0]
    assert (first.id, first.title, first.body) == (4, "", "Call the plumber")
    assert "Call the plumber" in await texts_with_id(driver, "index_note_text_description")


async def test_editing_an_existing_note_changes_it_in_place(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="Book ideas")
    assert find(await driver.dump_hierarchy(), id="editable_title", text="Book ideas") is not None
    await type_into(driver, " 2026", id="editable_title")
    await tap_on(driver, desc="Navigate up")
    notes = keep(phone).notes
    assert [(n.id, n.title) for n in notes] == [(1, "Packing list"), (2, "Book ideas 2026"),
                                                (3, "Wi-Fi password for guests")]
    assert notes[1].body == SEED[1][1]
    assert "Book ideas 2026" in await texts_with_id(driver, "index_note_title")


async def test_deleting_a_new_note_returns_to_the_list(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_new_note(phone, driver)
    await driver.type_text("scratch")
    await driver.press_key(KEY_BACK)
    await tap_on(driver, desc="Delete")
    await tap_on(driver, text="Delete", id="button1")
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    assert [n.title for n in keep(phone).notes] == SEED_TITLES


async def test_reset_restores_seeds(phone: VirtualPhone) -> None:
    app = keep(phone)
    app.delete(1)
    app.reset()
    assert [(n.id, n.title) for n in app.notes] == [(1, "Packing list"), (2, "Book ideas"),
                                                    (3, "Wi-Fi password for guests")]
    assert app.next_id == 4


# ---------------------------------------------------------------- labels, the drawer and selecting several notes


def add_trip_notes(phone: VirtualPhone) -> KeepNotes:
    app = keep(phone)
    app.add("Tram 28", "From Martim Moniz", ["Lisbon"])
    app.add("Sourdough", "Feed every 12 hours", ["Food"])
    app.add("Pastéis", "Manteigaria", ["Lisbon", "Food"])
    return app


async def card_titles(driver: PhoneDriver) -> list[str]:
    return sorted(await texts_with_id(driver, "index_note_title"))


async def long_press(driver: PhoneDriver, **query: str) -> None:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, query
    await driver.swipe(*node.center, *node.center, 800)


def test_added_notes_go_last_and_make_their_labels(phone: VirtualPhone) -> None:
    app = add_trip_notes(phone)
    assert [n.title for n in app.notes] == [*SEED_TITLES, "Tram 28", "Sourdough", "Pastéis"]
    assert app.labels == ["Lisbon", "Food"]
    assert [n.title for n in app.labelled("Food")] == ["Sourdough", "Pastéis"]
    app.reset()
    assert app.labels == [] and all(not n.labels for n in app.notes)


async def test_cards_and_the_editor_show_a_note_s_labels(phone: VirtualPhone, driver: PhoneDriver) -> None:
    add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    xml = await driver.dump_hierarchy()
    card = find(xml, text="Pastéis")
    assert card is not None
    chips = [n for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/note_label")]
    assert sorted(n.attrs["text"] for n in chips) == ["Food", "Food", "Lisbon", "Lisbon"]
    await tap_on(driver, text="Pastéis")
    assert await texts_with_id(driver, "note_label") == ["Lisbon", "Food"]


async def test_the_drawer_lists_labels_alphabetically_and_hides_the_grid(phone: VirtualPhone,
                                                                         driver: PhoneDriver) -> None:
    add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Open navigation drawer")
    xml = await driver.dump_hierarchy()
    assert [n.attrs["text"] for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/title")] == \
        ["Notes", "Food", "Lisbon"]
    assert find(xml, id="index_note_title") is None          # the grid is not reachable behind the drawer
    assert find(xml, text="Notes", id="title") is not None
    await driver.press_key(KEY_BACK)
    assert await card_titles(driver) == sorted([*SEED_TITLES, "Tram 28", "Sourdough", "Pastéis"])
    await tap_on(driver, desc="Open navigation drawer")
    width, height = phone.display_size
    await driver.tap(width - 20, height // 2)                  # the dimmed rest of the screen closes it
    assert find(await driver.dump_hierarchy(), id="navigation_drawer") is None


async def test_a_label_s_view_shows_its_notes_and_back_returns_to_all(phone: VirtualPhone,
                                                                      driver: PhoneDriver) -> None:
    add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Open navigation drawer")
    await tap_on(driver, text="Lisbon", id="title")
    assert await card_titles(driver) == ["Pastéis", "Tram 28"]
    xml = await driver.dump_hierarchy()
    assert find(xml, text="Lisbon", id="app_title") is not None
    assert find(xml, id="open_search_bar_text_view") is None
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    assert len(await card_titles(driver)) == 6


async def test_a_note_started_in_a_label_s_view_carries_the_label(phone: VirtualPhone,
                                                                   driver: PhoneDriver) -> None:
    app = add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Open navigation drawer")
    await tap_on(driver, text="Food", id="title")
    await tap_on(driver, desc="New note")
    await driver.type_text("Bagels")
    assert app.notes[0].body == "Bagels" and app.notes[0].labels == ["Food"]
    await driver.press_key(KEY_BACK)
    await driver.press_key(KEY_BACK)
    assert "Bagels" in await texts_with_id(driver, "index_note_text_description")


async def test_long_press_selects_and_taps_add_or_remove_cards(phone: VirtualPhone, driver: PhoneDriver) -> None:
    add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await long_press(driver, text="Book ideas")
    assert phone.focused_activity() == (PACKAGE, BROWSE)      # a long press does not open the note
    assert await texts_with_id(driver, "action_bar_title") == ["1"]
    await tap_on(driver, text="Packing list")
    await tap_on(driver, text="Book ideas")                   # a second tap drops it again
    xml = await driver.dump_hierarchy()
    assert find(xml, id="action_bar_title").attrs["text"] == "1"  # type: ignore[union-attr]
    selected = [n.attrs for n in nodes(xml) if n.attrs.get("selected") == "true"
                and n.attrs["resource-id"].endswith(":id/browse_note_interior_content")]
    assert len(selected) == 1
    await driver.press_key(KEY_BACK)                          # BACK ends the selection, not the app
    assert phone.focused_activity() == (PACKAGE, BROWSE)
    assert find(await driver.dump_hierarchy(), id="action_bar_title") is None
    await long_press(driver, text="Book ideas")
    await tap_on(driver, desc="Done")
    assert find(await driver.dump_hierarchy(), desc="Open navigation drawer") is not None


async def test_deleting_a_selection_asks_first_and_removes_only_those(phone: VirtualPhone,
                                                                      driver: PhoneDriver) -> None:
    app = add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await long_press(driver, text="Book ideas")
    await tap_on(driver, text="Packing list")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")
    assert find(await driver.dump_hierarchy(), text="Delete 2 notes?") is not None
    await tap_on(driver, text="Cancel")
    assert len(app.notes) == 6
    assert await texts_with_id(driver, "action_bar_title") == ["2"]   # still selected after Cancel
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")
    await tap_on(driver, text="Delete", id="button1")
    assert [n.title for n in app.notes] == ["Wi-Fi password for guests", "Tram 28", "Sourdough", "Pastéis"]
    assert find(await driver.dump_hierarchy(), id="action_bar_title") is None


async def test_make_a_copy_duplicates_the_selection_at_the_top(phone: VirtualPhone, driver: PhoneDriver) -> None:
    app = add_trip_notes(phone)
    await driver.launch_app(PACKAGE)
    await long_press(driver, text="Pastéis")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Make a copy")
    first = app.notes[0]
    assert (first.title, first.body, first.labels) == ("Pastéis", "Manteigaria", ["Lisbon", "Food"])
    assert first.id == 7 and len(app.titled("Pastéis")) == 2
