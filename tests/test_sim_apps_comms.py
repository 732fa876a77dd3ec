"""Contacts, Messages and Chrome on the virtual phone: their tasks (checker, oracle, wrong paths) and
behaviour an agent relies on, observed only through the hierarchy dump and input events."""

from __future__ import annotations

import pytest

from relay_desktop.sim.apps.browser import NEW_TAB, SEARCH, Chrome, search
from relay_desktop.sim.apps.contacts import SEED, Contacts
from relay_desktop.sim.apps.messages import LIST, THREAD, Messages
from relay_desktop.sim.phone import IME_PACKAGE, VirtualPhone
from relay_desktop.sim.tasks import TASKS_BY_ID, PhoneDriver, Task
from relay_desktop.sim.tasks.base import KEY_BACK, KEY_ENTER, Node, find, nodes, scroll_to, tap_on
from relay_desktop.sim.tasks.comms_tasks import TASKS

CONTACTS, MESSAGES, CHROME = "com.google.android.contacts", "com.google.android.apps.messaging", "com.android.chrome"


@pytest.fixture
def phone() -> VirtualPhone:
    return VirtualPhone()


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def contacts(phone: VirtualPhone) -> Contacts:
    return phone.apps[CONTACTS]  # type: ignore[return-value]


def messages(phone: VirtualPhone) -> Messages:
    return phone.apps[MESSAGES]  # type: ignore[return-value]


def chrome(phone: VirtualPhone) -> Chrome:
    return phone.apps[CHROME]  # type: ignore[return-value]


async def texts_with_id(driver: PhoneDriver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def must_find(driver: PhoneDriver, **query: str) -> Node:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, f"nothing matches {query}"
    return node


async def type_at(driver: PhoneDriver, value: str, **query: str) -> None:
    await tap_on(driver, **query)
    await driver.type_text(value)


# ---------------------------------------------------------------- tasks


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_task_fails_before_and_passes_after_its_oracle(phone: VirtualPhone, task: Task) -> None:
    assert TASKS_BY_ID[task.id] is task
    task.setup(phone)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    before = task.check(phone)
    assert not before and before.detail
    await task.oracle(PhoneDriver(phone))
    after = task.check(phone)
    assert after, after.detail


async def test_texting_carol_instead_of_bob_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["messages_text_bob"]
    task.setup(phone)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Carol Nguyen")
    await type_at(driver, "running late", text="Text message")
    await tap_on(driver, desc="Send SMS")
    result = task.check(phone)
    assert not result
    assert "Carol Nguyen: 'running late'" in result.detail


async def test_texting_bob_twice_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["messages_text_bob"]
    task.setup(phone)
    await task.oracle(driver)
    await type_at(driver, "Running  late!", text="Text message")
    await tap_on(driver, desc="Send SMS")
    result = task.check(phone)
    assert not result and "2 texts" in result.detail


async def test_contact_with_the_wrong_number_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["contacts_add_alice"]
    task.setup(phone)
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_at(driver, "Alice", text="First name")
    await type_at(driver, "Smith", text="Last name")
    await type_at(driver, "555-0199", text="Phone")
    await tap_on(driver, text="Save")
    result = task.check(phone)
    assert not result
    assert result.detail == "Alice Smith's number is '555-0199', expected 555-0100"


async def test_deleting_the_wrong_contact_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["contacts_delete_dave"]
    task.setup(phone)
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Carol Nguyen")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")
    await tap_on(driver, text="Delete")
    assert task.check(phone).detail == "Dave Kim is still in Contacts"
    assert not contacts(phone).named("Carol Nguyen")


async def test_wrong_weather_or_wrong_person_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["weather_to_carol"]
    task.setup(phone)
    messages(phone).send("555-0187", "Saturday looks rainy")
    assert task.check(phone).detail.startswith("no text to Carol Nguyen saying Saturday will be sunny")
    messages(phone).send("555-0142", "Saturday looks sunny")
    assert task.check(phone).detail == "a text went to someone other than Carol Nguyen: Bob Martinez: " \
                                       "'Saturday looks sunny'"


async def test_opening_the_second_result_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["chrome_search_seville"]
    task.setup(phone)
    await driver.launch_app(CHROME)
    await type_at(driver, "seville oranges", text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    await tap_on(driver, text="Seville orange marmalade recipe")
    result = task.check(phone)
    assert not result and "marmaladeguild.org" in result.detail


# ---------------------------------------------------------------- Contacts


async def test_contact_list_is_sorted_and_search_filters_as_you_type(phone: VirtualPhone,
                                                                     driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    shown = await texts_with_id(driver, "cliv_name_textview")
    assert shown[:4] == ["Amara Okafor", "Bob Martinez", "Carol Nguyen", "Dave Kim"]
    assert shown == sorted(shown)
    await type_at(driver, "ca", text="Search contacts")
    assert await texts_with_id(driver, "cliv_name_textview") == ["Carol Nguyen"]
    await driver.type_text("x")
    assert await texts_with_id(driver, "cliv_name_textview") == []
    assert (await must_find(driver, id="empty_list_view")).attrs["text"] == "No contacts found"
    await tap_on(driver, desc="Clear search")
    await driver.press_key(KEY_BACK)  # the keyboard hides the lower rows until it goes away
    assert await texts_with_id(driver, "cliv_name_textview") == shown


async def test_scrolling_reveals_contacts_below_the_fold(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    before = await texts_with_id(driver, "cliv_name_textview")
    assert "Zoe Adams" not in before and "Tom Becker" not in before
    node = await scroll_to(driver, text="Zoe Adams")
    after = await texts_with_id(driver, "cliv_name_textview")
    assert "Zoe Adams" in after and "Amara Okafor" not in after
    await driver.tap(*node.center)
    assert await texts_with_id(driver, "large_title") == ["Zoe Adams"]


async def test_contact_without_a_name_is_not_saved(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_at(driver, "555-0111", text="Phone")
    await tap_on(driver, text="Save")
    error = await must_find(driver, id="error_text")
    assert error.attrs["text"] == "Enter a first or last name to save this contact"
    assert len(contacts(phone).contacts) == len(SEED)
    assert phone.focused_activity() == (CONTACTS, "com.android.contacts.activities.ContactEditorActivity")
    await type_at(driver, "Nia", text="First name")
    assert find(await driver.dump_hierarchy(), id="error_text") is None  # typing clears the error
    await tap_on(driver, text="Save")
    assert await texts_with_id(driver, "large_title") == ["Nia"]
    assert contacts(phone).named("Nia")[0].phone == "555-0111"


async def test_edit_keeps_the_number_as_typed(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Bob Martinez")
    await tap_on(driver, text="Edit")
    phone_field = await must_find(driver, id="phone")
    assert phone_field.attrs["text"] == "555-0142"
    await tap_on(driver, id="phone")
    for _ in range(8):
        await driver.press_key(67)
    await driver.type_text("(555) 010-9999")
    await tap_on(driver, text="Save")
    assert await texts_with_id(driver, "header") == ["(555) 010-9999"]
    assert contacts(phone).named("Bob Martinez")[0].phone == "(555) 010-9999"
    phone.clear_data(CONTACTS)
    assert contacts(phone).named("Bob Martinez")[0].phone == "555-0142"


async def test_cancelling_the_delete_dialog_keeps_the_contact(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Dave Kim")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")
    dialog = await driver.dump_hierarchy()
    assert find(dialog, id="alertTitle").attrs["text"] == "Delete this contact?"  # type: ignore[union-attr]
    assert find(dialog, id="button1").attrs["text"] == "Delete"  # type: ignore[union-attr]
    await tap_on(driver, text="Cancel")
    assert contacts(phone).named("Dave Kim")
    assert await texts_with_id(driver, "large_title") == ["Dave Kim"]


async def test_text_button_opens_the_thread_with_that_contact(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Carol Nguyen")
    await tap_on(driver, text="Text")
    assert phone.focused_activity() == (MESSAGES, THREAD)
    assert await texts_with_id(driver, "conversation_title") == ["Carol Nguyen"]
    await driver.type_text("hi")  # the compose field already has focus
    await tap_on(driver, desc="Send SMS")
    assert [(m.name, m.text) for m in messages(phone).sent] == [("Carol Nguyen", "hi")]
    await driver.press_key(KEY_BACK)   # hides the keyboard
    await driver.press_key(KEY_BACK)   # leaves Messages, back to the contact
    assert await texts_with_id(driver, "large_title") == ["Carol Nguyen"]


async def test_search_ignores_accents_and_the_list_sorts_them_in_place(phone: VirtualPhone,
                                                                        driver: PhoneDriver) -> None:
    contacts(phone).add("Jörg", "Müller", "+49 151 23456789")
    await driver.launch_app(CONTACTS)
    shown = await texts_with_id(driver, "cliv_name_textview")
    assert shown.index("Jörg Müller") == shown.index("Julia Rossi") - 1   # "Jö" sorts as "Jo", before "Ju"
    await type_at(driver, "jorg mull", text="Search contacts")
    assert await texts_with_id(driver, "cliv_name_textview") == ["Jörg Müller"]
    await tap_on(driver, desc="Clear search")
    await type_at(driver, "MÜ", text="Search contacts")
    assert await texts_with_id(driver, "cliv_name_textview") == ["Jörg Müller"]


# ---------------------------------------------------------------- Messages


async def test_conversation_list_shows_seeded_threads_newest_first(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    assert await texts_with_id(driver, "conversation_name") == ["Bob Martinez", "Carol Nguyen", "Grace Liu", "22395"]
    snippets = await texts_with_id(driver, "conversation_snippet")
    assert snippets[1] == "Tuesday works. See you then!"
    assert snippets[2].startswith("Thanks for the book")
    assert len(await texts_with_id(driver, "conversation_timestamp")) == 4


async def test_send_button_is_enabled_only_with_text(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    assert (await must_find(driver, desc="Send SMS")).attrs["enabled"] == "false"
    await tap_on(driver, desc="Send SMS")
    assert messages(phone).sent == []
    await type_at(driver, " ", text="Text message")
    assert (await must_find(driver, desc="Send SMS")).attrs["enabled"] == "false"
    await driver.type_text("on my way")
    assert (await must_find(driver, desc="Send SMS")).attrs["enabled"] == "true"
    await tap_on(driver, desc="Send SMS")
    assert (await must_find(driver, id="compose_message_text")).attrs["text"] == "Text message"  # hint again
    assert (await texts_with_id(driver, "message_text"))[-1] == "on my way"
    bob = messages(phone).find_conversation("555-0142")
    assert bob is not None and bob.messages[-1].outgoing and bob.messages[-1].text == "on my way"


async def test_keyboard_covers_the_lower_screen_and_the_composer_stays_above_it(phone: VirtualPhone,
                                                                                driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    assert not [n for n in nodes(await driver.dump_hierarchy()) if n.attrs["package"] == IME_PACKAGE]
    await tap_on(driver, text="Text message")
    xml = await driver.dump_hierarchy()
    ime = [n for n in nodes(xml) if n.attrs["package"] == IME_PACKAGE]
    assert ime and ime[0].bounds[3] == phone.display_size[1] - phone.kit.dp(48)
    keyboard_top = ime[0].bounds[1]
    assert keyboard_top > phone.display_size[1] // 2
    field = find(xml, id="compose_message_text")
    assert field is not None and field.attrs["focused"] == "true" and field.bounds[3] <= keyboard_top
    assert find(xml, desc="Send SMS").bounds[3] <= keyboard_top  # type: ignore[union-attr]


async def test_back_from_a_thread_returns_to_the_list(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Grace Liu")
    assert phone.focused_activity() == (MESSAGES, THREAD)
    assert (await texts_with_id(driver, "message_text"))[-1].startswith("Thanks for the book")
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (MESSAGES, LIST)
    assert "Grace Liu" in await texts_with_id(driver, "conversation_name")


async def test_start_chat_with_a_new_number(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await driver.type_text("555-0199")  # the To field has focus as the screen opens
    await tap_on(driver, text="Send to 555-0199")
    assert await texts_with_id(driver, "conversation_title") == ["555-0199"]
    await driver.type_text("Hello")
    await tap_on(driver, desc="Send SMS")
    await driver.press_key(KEY_BACK)
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (MESSAGES, LIST)
    assert (await texts_with_id(driver, "conversation_name"))[0] == "555-0199"
    assert (await texts_with_id(driver, "conversation_snippet"))[0] == "You: Hello"


async def test_sms_intents_open_the_thread_with_a_draft(phone: VirtualPhone, driver: PhoneDriver) -> None:
    started = phone.start_intent("android.intent.action.SENDTO", "smsto:5550187", None)
    assert started == f"{MESSAGES}/{THREAD}"
    assert await texts_with_id(driver, "conversation_title") == ["Carol Nguyen"]
    phone.start_intent("android.intent.action.VIEW", "sms:555-0119?body=Lunch%3F", None)
    assert await texts_with_id(driver, "conversation_title") == ["Dave Kim"]
    assert (await must_find(driver, id="compose_message_text")).attrs["text"] == "Lunch?"


async def test_calling_from_a_thread_is_logged_with_the_contacts_calls(phone: VirtualPhone,
                                                                        driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Carol Nguyen")
    await tap_on(driver, desc="Call")
    assert contacts(phone).calls == ["555-0187"]
    assert messages(phone).sent == []


# ---------------------------------------------------------------- Chrome


def test_search_ranks_title_matches_first() -> None:
    assert search("seville oranges")[0].title == "Seville oranges: where to buy"
    assert search("seville oranges")[1].title == "Seville orange marmalade recipe"
    assert search("python asyncio")[0].url == "https://docs.python.org/3/library/asyncio.html"
    assert [p.url for p in search("zzz")] == [p.url for p in search("")]  # no match: corpus order


async def test_search_result_page_and_back_through_history(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CHROME)
    await type_at(driver, "pasta", text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    assert chrome(phone).current_url == SEARCH + "pasta"
    assert (await must_find(driver, id="url_bar")).attrs["text"] == "pasta"
    await tap_on(driver, text="Pasta recipes: 20 easy weeknight dinners")
    assert chrome(phone).current_url == "https://www.pastaclub.net/recipes/weeknight"
    assert find(await driver.dump_hierarchy(), contains="Cacio e pepe: spaghetti") is not None
    await driver.press_key(KEY_BACK)
    assert chrome(phone).current_url == SEARCH + "pasta"
    await driver.press_key(KEY_BACK)
    assert chrome(phone).current_url == NEW_TAB
    assert (await must_find(driver, id="search_box_text")).attrs["text"] == "Search or type URL"
    assert chrome(phone).visited == [SEARCH + "pasta", "https://www.pastaclub.net/recipes/weeknight"]


async def test_omnibox_replaces_the_url_when_typing(phone: VirtualPhone, driver: PhoneDriver) -> None:
    phone.start_intent("android.intent.action.VIEW", "https://relayweather.com/forecast", None)
    assert (await must_find(driver, id="url_bar")).attrs["text"] == "relayweather.com"
    await type_at(driver, "python asyncio", id="url_bar")
    await driver.press_key(KEY_ENTER)
    assert chrome(phone).current_url == SEARCH + "python+asyncio"
    await tap_on(driver, text="asyncio — Asynchronous I/O — Python 3 docs")
    assert chrome(phone).current_url == "https://docs.python.org/3/library/asyncio.html"


async def test_view_intents_open_pages_or_an_error_page(phone: VirtualPhone, driver: PhoneDriver) -> None:
    phone.start_intent("android.intent.action.VIEW", "https://www.citrusfarm.es/seville-oranges", None)
    assert (await must_find(driver, cls="android.webkit.WebView")).attrs["text"] == "Seville oranges: where to buy"
    await tap_on(driver, text="Seville orange marmalade recipe")
    assert chrome(phone).current_url == "https://www.marmaladeguild.org/recipes/seville-orange-marmalade"
    phone.start_intent("android.intent.action.VIEW", "http://no-such-site.test/page", None)
    xml = await driver.dump_hierarchy()
    assert find(xml, text="This site can't be reached") is not None
    assert find(xml, text="Check if there is a typo in no-such-site.test.") is not None
    assert chrome(phone).visited[-1] == "http://no-such-site.test/page"


async def test_web_search_intent_opens_the_new_tab_page_ready_to_type(phone: VirtualPhone,
                                                                      driver: PhoneDriver) -> None:
    await tap_on(driver, desc="Search")  # the home screen's search bar sends WEB_SEARCH
    xml = await driver.dump_hierarchy()
    box = find(xml, id="search_box_text")
    assert box is not None and box.attrs["focused"] == "true"
    assert any(n.attrs["package"] == IME_PACKAGE for n in nodes(xml))
    await driver.type_text("marmalade")
    await driver.press_key(KEY_ENTER)
    assert chrome(phone).current_url == SEARCH + "marmalade"


async def test_shortcut_tiles_and_history(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(CHROME)
    await tap_on(driver, desc="Wikipedia")
    assert chrome(phone).current_url == "https://en.wikipedia.org/wiki/Bitter_orange"
    await tap_on(driver, desc="Customize and control Google Chrome")
    await tap_on(driver, text="History")
    assert find(await driver.dump_hierarchy(), text="Bitter orange - Wikipedia") is not None
    phone.clear_data(CHROME)
    assert chrome(phone).visited == [] and chrome(phone).current_url is None


async def test_a_long_thread_follows_the_newest_message_until_scrolled_up(phone: VirtualPhone,
                                                                           driver: PhoneDriver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Carol Nguyen")
    await tap_on(driver, text="Text message")
    for i in range(1, 9):
        await driver.type_text(f"update number {i}")
        await tap_on(driver, desc="Send SMS")
    xml = await driver.dump_hierarchy()
    shown = [n for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(":id/message_text")]
    assert shown[-1].attrs["text"] == "update number 8"
    assert shown[-1].bounds[3] <= find(xml, id="compose_message_view").bounds[1]  # type: ignore[union-attr]
    assert "Thanks for dinner last night!" not in [n.attrs["text"] for n in shown]
    await driver.press_key(KEY_BACK)  # keyboard away: the list grows and still ends at the newest message
    assert (await texts_with_id(driver, "message_text"))[-1] == "update number 8"
    for _ in range(6):
        await driver.swipe(540, 700, 540, 1700, 400)
    assert (await texts_with_id(driver, "message_text"))[0] == "Thanks for dinner last night!"
    phone.invalidate()  # a rebuild (as any screen change causes) does not snap the list back to the end
    assert (await texts_with_id(driver, "message_text"))[0] == "Thanks for dinner last night!"


async def test_explicit_components_with_real_class_names(phone: VirtualPhone, driver: PhoneDriver) -> None:
    url = "https://docs.python.org/3/library/asyncio.html"
    phone.start_intent("android.intent.action.VIEW", url, "com.android.chrome/com.google.android.apps.chrome.Main")
    assert chrome(phone).current_url == url
    assert (await must_find(driver, cls="android.webkit.WebView")).attrs["text"].startswith("asyncio")
    assert chrome(phone).visited == [url]
    phone.start_intent(None, None, f"{CONTACTS}/com.android.contacts.activities.PeopleActivity")
    assert "Bob Martinez" in await texts_with_id(driver, "cliv_name_textview")


async def test_insert_intent_opens_the_editor(phone: VirtualPhone, driver: PhoneDriver) -> None:
    started = phone.start_intent("android.intent.action.INSERT", "content://com.android.contacts/contacts", None)
    assert started == f"{CONTACTS}/com.android.contacts.activities.ContactEditorActivity"
    assert (await must_find(driver, id="title_text")).attrs["text"] == "Create contact"
    await type_at(driver, "Quinn", text="First name")
    await tap_on(driver, text="Save")
    assert await texts_with_id(driver, "large_title") == ["Quinn"]
    assert [c.name for c in contacts(phone).contacts][-1] == "Quinn"
