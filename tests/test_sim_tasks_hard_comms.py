"""Near misses for the hard Contacts / Messages / Chrome / Keep tasks: the wrong person, the wrong item, half the
work or text that is almost right must not pass their checkers. Each starts from the task's own setup and
acts through the screen (the in-process driver) where an agent could make that mistake."""

from __future__ import annotations

import unicodedata

import pytest

from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import TASKS_BY_ID, PhoneDriver, Task
from relay_desktop.sim.tasks.base import KEY_DEL, find, nodes, tap_on, type_into
from relay_desktop.sim.tasks.hard_comms_common import (
    back_to,
    contacts_of,
    keep_of,
    messages_of,
    open_contact,
    open_conversation,
    send_text,
    write_note,
)
from relay_desktop.sim.tasks.hard_comms_tasks import DOING_IT_ANYWAY, TASKS

CONTACTS, KEEP = "com.google.android.contacts", "com.google.android.keep"


@pytest.fixture
def phone() -> VirtualPhone:
    return VirtualPhone()


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def start(phone: VirtualPhone, task_id: str) -> Task:
    task = TASKS_BY_ID[task_id]
    task.setup(phone)
    return task


def failing(task: Task, phone: VirtualPhone, *words: str) -> str:
    """The checker's reason for failing, which must name what went wrong."""
    result = task.check(phone)
    assert not result.ok, f"{task.id} passed a near miss: {result.detail}"
    for word in words:
        assert word in result.detail, result.detail
    return result.detail


# ---------------------------------------------------------------- the suite's shape

def test_at_least_thirteen_hard_tasks_cover_every_kind() -> None:
    assert len(TASKS) >= 13 and all("hard" in t.tags for t in TASKS)
    count = {kind: sum(kind in t.tags for t in TASKS) for kind in
             ("cross_app", "multi_goal", "collect", "non_ascii", "infeasible", "ask_user", "many_items", "paraphrase")}
    assert count["cross_app"] >= 3 and count["multi_goal"] >= 2 and count["collect"] >= 2, count
    assert count["non_ascii"] >= 2 and count["infeasible"] >= 2 and count["ask_user"] >= 1, count
    assert count["many_items"] >= 1 and count["paraphrase"] >= 1, count
    assert set(DOING_IT_ANYWAY) == {t.id for t in TASKS if t.expected_outcome == "failed"}
    assert not [t.id for t in TASKS if any(ord(c) > 127 for c in t.goal) and "non_ascii" not in t.tags]


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_the_oracle_solves_it_in_process(phone: VirtualPhone, task: Task) -> None:
    task.setup(phone)
    assert task.check(phone).ok == (task.expected_outcome == "failed")
    await task.oracle(PhoneDriver(phone))
    assert task.check(phone).ok


# ---------------------------------------------------------------- facts carried across apps

async def test_wifi_half_told_or_told_to_the_wrong_person_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_wifi_password_to_bob")
    await open_conversation(driver, "Bob Martinez")
    await send_text(driver, "The password is bluebird2024")
    failing(task, phone, "network name")
    await send_text(driver, "Network is Maple-Guest")          # a second text completes it
    assert task.check(phone).ok
    await back_to(driver, desc="Start chat")
    await open_conversation(driver, "Carol Nguyen")
    await send_text(driver, "Wi-Fi: Maple-Guest / bluebird2024")
    failing(task, phone, "Carol Nguyen")


async def test_saving_the_electrician_or_renaming_julia_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_plumber_from_web")
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, "Rossi Plumbing", text="First name")
    await type_into(driver, "555-0109", text="Phone")          # the electrician's number, one line up
    await tap_on(driver, text="Save")
    failing(task, phone, "555-0109", "555-0107")
    task = start(phone, "hard_plumber_from_web")
    julia = contacts_of(phone).named("Julia Rossi")[0]
    julia.first, julia.last, julia.phone = "Rossi", "Plumbing", "555-0107"   # edited the wrong Rossi
    failing(task, phone, "missing Julia Rossi")


async def test_a_second_maya_or_the_wrong_number_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_maya_number_from_text")
    contacts_of(phone).add("Maya", "Patel", "555-0177")         # added her again instead of editing
    failing(task, phone, "2 contacts are named Maya Patel")
    task = start(phone, "hard_maya_number_from_text")
    await open_contact(driver, "Maya Patel")
    await tap_on(driver, text="Edit")
    field = await tap_on(driver, id="phone")
    for _ in field.attrs["text"]:
        await driver.press_key(KEY_DEL)
    await driver.type_text("555-0119")                          # Dave's own number, from the thread's header
    await tap_on(driver, text="Save")
    failing(task, phone, "'555-0119', expected 555-0177")


async def test_the_recipe_without_amounts_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_marmalade_ingredients_note")
    await write_note(driver, "Marmalade", "Seville oranges, lemon, water, sugar")
    failing(task, phone, "1 kg", "2 kg", "2 litres")


# ---------------------------------------------------------------- several goals

async def test_one_of_two_texts_or_a_double_text_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_book_club_two_texts")
    await open_conversation(driver, "Grace Liu")
    await send_text(driver, "Book club has moved to Thursday")
    failing(task, phone, "Omar Haddad got 0")
    await back_to(driver, desc="Start chat")
    await open_conversation(driver, "Omar Haddad")
    await send_text(driver, "Book club moved to Thursday!")
    assert task.check(phone).ok
    await send_text(driver, "Book club: Thursday, not Wednesday")
    failing(task, phone, "Omar Haddad got 2")


async def test_lena_with_a_mistyped_number_fails_even_when_texted(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_add_lena_and_welcome")
    contacts_of(phone).add("Lena", "Vogel", "555-0191")
    messages_of(phone).send("555-0191", "Welcome to the team!")
    failing(task, phone, "Lena Vogel")


async def test_two_of_three_goals_fail_and_say_which_is_missing(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_julia_three_goals")
    await open_contact(driver, "Julia Rossi")
    await tap_on(driver, desc="Add to favourites")
    await tap_on(driver, text="Text")
    await driver.type_text("See you Friday!")
    await tap_on(driver, desc="Send SMS")
    detail = failing(task, phone, "0 notes are titled 'Dinner with Julia'")
    assert "favourites" not in detail and "texts" not in detail
    await write_note(driver, "Dinner with Julia", "Friday 8pm, Trattoria Lucca")
    assert task.check(phone).ok
    contacts_of(phone).named("Julia Rossi")[0].starred = False
    failing(task, phone, "favourites are empty")


# ---------------------------------------------------------------- collecting

async def test_a_wrong_or_missing_number_in_the_emergency_note_fails(phone: VirtualPhone,
                                                                     driver: PhoneDriver) -> None:
    task = start(phone, "hard_emergency_contacts_note")
    await write_note(driver, "Emergency contacts", "Hannah 555-0104\nIvan 555-0156\nKenji 555-0118")
    failing(task, phone, "Kenji's number 555-0181")
    task = start(phone, "hard_emergency_contacts_note")
    await write_note(driver, "Emergency contacts", "Hannah 555-0104\nIvan 555-0156")
    failing(task, phone, "does not name Kenji")


async def test_dave_s_first_offer_instead_of_his_correction_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_barbecue_note_from_texts")
    conversations = messages_of(phone).conversations
    assert sum(not c.read for c in conversations) == 5        # Bob's question and the four barbecue threads
    await write_note(driver, "Barbecue", "Dave: chips\nSofia: potato salad\nTom: burgers")
    failing(task, phone, "Dave brings watermelon")


# ---------------------------------------------------------------- non-ASCII, exactly

async def test_transliterated_german_fails_and_decomposed_umlauts_pass(phone: VirtualPhone,
                                                                       driver: PhoneDriver) -> None:
    task = start(phone, "hard_german_shopping_note")
    await write_note(driver, "Einkaufsliste", "Aepfel, Broetchen, Weisswurst, Kaese")
    failing(task, phone, "expected exactly 'Äpfel, Brötchen, Weißwurst, Käse'")
    task = start(phone, "hard_german_shopping_note")
    decomposed = unicodedata.normalize("NFD", "Äpfel, Brötchen, Weißwurst, Käse")
    assert decomposed != "Äpfel, Brötchen, Weißwurst, Käse"
    await write_note(driver, "Einkaufsliste", decomposed)      # a paste may carry NFD text; it reads the same
    assert task.check(phone).ok


async def test_a_birthday_text_without_the_emoji_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_kenji_birthday_japanese")
    await open_conversation(driver, "Kenji Watanabe")
    await send_text(driver, "お誕生日おめでとう！")
    failing(task, phone, "expected exactly")
    xml = await driver.dump_hierarchy()                         # the dump carries the text as the phone has it
    assert any(n.attrs.get("text") == "お誕生日おめでとう！" for n in nodes(xml))


async def test_jorg_without_umlauts_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_jorg_in_phone_book")
    contacts_of(phone).add("Jorg", "Muller", "+49 151 23456789")
    failing(task, phone, "no contact named exactly 'Jörg Müller'", "Jorg Muller")
    task = start(phone, "hard_jorg_in_phone_book")
    contacts_of(phone).add("Jörg Müller", "", "0151 23456789")   # the whole name in one field is fine; the
    failing(task, phone, "missing Jörg Müller (+49 151 23456789)")  # number without +49 is not his


# ---------------------------------------------------------------- ambiguous and infeasible

async def test_texting_the_other_sofia_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_text_sofia_ask_which")
    assert task.must_ask and task.answers == ("Sofia Lindqvist, from work",)
    await driver.launch_app("com.google.android.apps.messaging")
    await tap_on(driver, desc="Start chat")
    await driver.type_text("Sofia")
    xml = await driver.dump_hierarchy()
    assert [n.attrs["text"] for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/contact_name")] == \
        ["Sofia Garcia", "Sofia Lindqvist"]                     # both are offered: the request is ambiguous
    await tap_on(driver, text="Sofia Garcia", id="contact_name")
    await send_text(driver, "Running 10 minutes late, start without me")
    failing(task, phone, "Sofia Garcia got")


async def test_calling_bob_from_his_thread_fails_the_work_number_task(phone: VirtualPhone,
                                                                      driver: PhoneDriver) -> None:
    task = start(phone, "hard_call_bob_work_infeasible")
    await open_conversation(driver, "Bob Martinez")
    await tap_on(driver, desc="Call")
    failing(task, phone, "a call was placed to 555-0142")


async def test_editing_another_note_fails_the_gift_ideas_task(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_gift_ideas_infeasible")
    await driver.launch_app(KEEP)
    await type_into(driver, "souvenirs", id="open_search_bar_text_view")
    await tap_on(driver, text="Souvenirs", id="index_note_title")
    await type_into(driver, ", scarf", id="edit_note_text")
    failing(task, phone, "missing or changed: 'Souvenirs'", "unexpected: 'Souvenirs'")


# ---------------------------------------------------------------- many notes under a label

async def test_deleting_what_a_search_for_lisbon_finds_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_delete_lisbon_notes")
    await driver.launch_app(KEEP)
    await type_into(driver, "Lisbon", id="open_search_bar_text_view")
    xml = await driver.dump_hierarchy()
    found = sorted(n.attrs["text"] for n in nodes(xml) if n.attrs["resource-id"].endswith(":id/index_note_title"))
    assert found == ["Lisbon restaurants for next time"]        # the one Lisbon note *not* labelled Lisbon 2025
    await tap_on(driver, text=found[0], id="index_note_title")
    await tap_on(driver, desc="Delete")
    await tap_on(driver, text="Delete", id="button1")
    failing(task, phone, "5 notes are still labelled Lisbon 2025")


async def test_some_of_the_labelled_notes_or_copies_fail(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_delete_lisbon_notes")
    keep = keep_of(phone)
    for note in keep.labelled("Lisbon 2025")[:4]:
        keep.delete(note.id)
    failing(task, phone, "1 notes are still labelled Lisbon 2025: 'Souvenirs'")
    task = start(phone, "hard_delete_lisbon_notes")
    await driver.launch_app(KEEP)
    await tap_on(driver, desc="Open navigation drawer")
    await tap_on(driver, text="Lisbon 2025", id="title")
    card = find(await driver.dump_hierarchy(), text="Tram 28")
    assert card is not None
    await driver.swipe(*card.center, *card.center, 800)
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Make a copy")                   # the wrong menu item
    failing(task, phone, "6 notes are still labelled")
    task = start(phone, "hard_delete_lisbon_notes")
    for note in keep_of(phone).labelled("Lisbon 2025"):
        keep_of(phone).delete(note.id)
    keep_of(phone).delete(keep_of(phone).titled("Porto weekend")[0].id)   # one too many
    failing(task, phone, "missing or changed: 'Porto weekend'")
