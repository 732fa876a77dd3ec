"""Messages on the virtual phone: a conversation with several recipients, started as Google Messages does —
"Create group", each picked contact (or typed number) a removable chip in the To field, "Next" opens one
group thread — driven through Google's adb server, seen only through dumps and input events."""

from __future__ import annotations

from relay_desktop.sim.apps.contacts import same_number
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import THREAD, Messages
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import Driver
from relay_desktop.sim.tasks.base import KEY_BACK, KEY_ENTER, find, nodes, tap_on
from relay_desktop.sim.tasks.hard_comms_common import stray_texts, texts_to
from tests.conftest import AdbTestServer

BOB, CAROL = "555-0142", "555-0187"


def messages_app(sim: VirtualPhoneService) -> Messages:
    return sim.phone.apps[MESSAGES]  # type: ignore[return-value]


async def texts_with_id(driver: Driver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def pick(driver: Driver, query: str, name: str) -> None:
    await driver.type_text(query)
    await tap_on(driver, text=name, id="contact_name")


async def device_for(adb_server: AdbTestServer, sim: VirtualPhoneService) -> Driver:
    return await adb_server.server().device(sim.serial)  # type: ignore[return-value]


async def test_two_picked_contacts_become_chips_and_next_opens_one_group_thread(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    driver = await device_for(adb_server, sim)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await tap_on(driver, id="contact_picker_create_group", text="Create group")
    await pick(driver, "Bob", "Bob Martinez")
    assert await texts_with_id(driver, "recipient_chip_name") == ["Bob Martinez"]
    # the query is cleared for the next person: the empty field shows its hint, as a dump does
    assert await texts_with_id(driver, "recipient_text_view") == ["Type a name, phone number, or email"]
    assert sim.phone.focused_activity()[1] != THREAD                      # still choosing people
    await pick(driver, "Carol", "Carol Nguyen")
    assert await texts_with_id(driver, "recipient_chip_name") == ["Bob Martinez", "Carol Nguyen"]
    await tap_on(driver, text="Next")
    assert await texts_with_id(driver, "conversation_title") == ["Bob Martinez, Carol Nguyen"]
    await tap_on(driver, text="Text message")
    await driver.type_text("Dinner moved to 8:30")
    await tap_on(driver, desc="Send SMS")
    sent = messages_app(sim).sent
    assert len(sent) == 1
    assert sent[0].recipients == (BOB, CAROL) and sent[0].text == "Dinner moved to 8:30"
    assert sent[0].name == "Bob Martinez, Carol Nguyen"
    await driver.press_key(KEY_BACK)     # the keyboard
    await driver.press_key(KEY_BACK)     # the thread
    xml = await driver.dump_hierarchy()
    names = [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(":id/conversation_name")]
    assert names[0] == "Bob Martinez, Carol Nguyen"
    assert "Bob Martinez" in names and "Carol Nguyen" in names          # their own threads are apart
    snippets = await texts_with_id(driver, "conversation_snippet")
    assert snippets[0] == "You: Dinner moved to 8:30"


async def test_a_typed_number_becomes_a_chip_and_a_chip_can_be_removed(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    driver = await device_for(adb_server, sim)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await tap_on(driver, text="Create group")
    await pick(driver, "Bob", "Bob Martinez")
    await driver.type_text("555-0199")
    await driver.press_key(KEY_ENTER)
    assert await texts_with_id(driver, "recipient_chip_name") == ["Bob Martinez", "555-0199"]
    await tap_on(driver, desc="Remove Bob Martinez")
    assert await texts_with_id(driver, "recipient_chip_name") == ["555-0199"]
    await pick(driver, "Carol", "Carol Nguyen")
    await tap_on(driver, text="Next")
    assert await texts_with_id(driver, "conversation_title") == ["555-0199, Carol Nguyen"]
    await tap_on(driver, text="Text message")
    await driver.type_text("hi")
    await tap_on(driver, desc="Send SMS")
    assert [s.recipients for s in messages_app(sim).sent] == [("555-0199", CAROL)]


async def test_next_waits_for_a_recipient_and_picking_outside_a_group_still_opens_one_thread(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    driver = await device_for(adb_server, sim)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await tap_on(driver, text="Create group")
    next_button = find(await driver.dump_hierarchy(), text="Next")
    assert next_button is not None and next_button.attrs["enabled"] == "false"
    await driver.press_key(KEY_BACK)      # the keyboard
    await driver.press_key(KEY_BACK)      # leaves the group, back to the one-to-one picker
    xml = await driver.dump_hierarchy()
    assert find(xml, text="New conversation") is not None and find(xml, text="Create group") is not None
    await tap_on(driver, id="recipient_text_view")
    await pick(driver, "Bob", "Bob Martinez")
    assert await texts_with_id(driver, "conversation_title") == ["Bob Martinez"]


async def test_an_sms_uri_with_several_numbers_opens_their_group_thread(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    messages_app(sim).send(f"{BOB};{CAROL}", "See you at 8")
    device = await adb_server.server().device(sim.serial)
    await device.shell(f"am start -a android.intent.action.SENDTO -d 'smsto:{CAROL};{BOB}'")
    assert await texts_with_id(device, "conversation_title") == ["Bob Martinez, Carol Nguyen"]   # type: ignore[arg-type]
    assert await texts_with_id(device, "message_text") == ["See you at 8"]   # type: ignore[arg-type]


def test_a_group_message_is_not_a_text_to_one_of_its_people() -> None:
    # The group's key ends with Carol's digits: the loose number match must not take it for her number alone,
    # or "text Carol" checkers would pass on a message Bob got too.
    phone = VirtualPhone()
    app: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    app.send(f"{BOB};{CAROL}", "Dinner moved to 8:30")
    assert texts_to(phone, CAROL) == [] and texts_to(phone, BOB) == []
    assert [m.text for m in stray_texts(phone, CAROL)] == ["Dinner moved to 8:30"]
    assert not same_number(f"{BOB};{CAROL}", CAROL)


async def test_a_group_thread_names_the_sender_above_each_run_of_incoming_bubbles(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    app = messages_app(sim)
    group = f"{BOB};{CAROL}"
    app.send(group, "Dinner moved to 8:30")
    app.receive(group, "Works for me", sender=BOB, heads_up=None)
    app.receive(group, "Same here", sender=CAROL, heads_up=None)
    app.receive(group, "Can I bring a friend?", sender=CAROL, heads_up=None)
    device = await adb_server.server().device(sim.serial)
    await device.shell(f"am start -a android.intent.action.SENDTO -d 'smsto:{group}'")
    xml = await device.dump_hierarchy()
    shown = [(n.attrs.get("resource-id", "").rsplit("/", 1)[-1], n.attrs["text"]) for n in nodes(xml)
             if n.attrs.get("resource-id", "").endswith(("/message_text", "/sender_name"))]
    assert shown == [("message_text", "Dinner moved to 8:30"),
                     ("sender_name", "Bob Martinez"), ("message_text", "Works for me"),
                     ("sender_name", "Carol Nguyen"), ("message_text", "Same here"),
                     ("message_text", "Can I bring a friend?")]


async def test_a_one_to_one_thread_names_no_sender(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    await device.shell(f"am start -a android.intent.action.SENDTO -d 'smsto:{BOB}'")
    assert await texts_with_id(device, "sender_name") == []   # type: ignore[arg-type]
    assert await texts_with_id(device, "message_text")        # type: ignore[arg-type]
