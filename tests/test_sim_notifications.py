"""Notifications on the virtual phone: the heads-up card and the shade as an agent sees them (UI dump, screen),
opening and dismissing them, the shell's `cmd notification post` / `cmd statusbar`, an incoming text, and a page
published on the phone's web."""

from __future__ import annotations

import asyncio

import pytest

from relay_desktop.sim.apps.browser import Chrome, Page
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import THREAD, Messages
from relay_desktop.sim.notifications import SYSTEM_UI
from relay_desktop.sim.phone import LAUNCHER_PACKAGE, VirtualPhone
from relay_desktop.sim.streams import ProcessIO
from relay_desktop.sim.tasks.base import KEY_BACK, Node, find, nodes

CHROME = "com.android.chrome"


@pytest.fixture
def phone() -> VirtualPhone:
    return VirtualPhone()


async def system_ui(phone: VirtualPhone) -> list[Node]:
    return [n for n in nodes(await phone.dump_hierarchy()) if n.attrs["package"] == SYSTEM_UI]


async def texts(phone: VirtualPhone, id: str) -> list[str]:
    return [n.attrs["text"] for n in await system_ui(phone) if n.attrs["resource-id"] == id]


async def shell(phone: VirtualPhone, command: str) -> tuple[int, str]:
    io, out, err = ProcessIO.collecting()
    status = await phone.run_shell(command, io)
    return status, (out + err).decode()


async def test_a_heads_up_card_shows_under_the_status_bar_in_the_dump_and_on_screen(phone: VirtualPhone) -> None:
    before = await phone.screenshot()
    phone.notifications.post(MESSAGES, "Bob Martinez", "Are you coming on Saturday?")
    assert await texts(phone, "android:id/title") == ["Bob Martinez"]
    assert await texts(phone, "android:id/text") == ["Are you coming on Saturday?"]
    assert await texts(phone, "android:id/app_name_text") == ["Messages"]
    card = find(await phone.dump_hierarchy(), id="heads_up_notification")
    assert card is not None and card.attrs["clickable"] == "true"
    top = phone.kit.dp(24)
    assert top <= card.bounds[1] < card.bounds[3] < phone.display_size[1] // 4
    after = await phone.screenshot()
    region = (0, card.bounds[1], phone.display_size[0], card.bounds[3])
    assert before.crop(region).tobytes() != after.crop(region).tobytes()   # drawn, not only dumped
    # The launcher beneath is still in the dump: the card covers only its top.
    assert any(n.attrs["package"] == LAUNCHER_PACKAGE for n in nodes(await phone.dump_hierarchy()))


async def test_the_heads_up_card_times_out_but_the_notification_stays_in_the_shade(phone: VirtualPhone) -> None:
    phone.notifications.post("com.android.shell", "Build finished", "All green", heads_up=0.05)
    assert await texts(phone, "android:id/title") == ["Build finished"]
    await asyncio.sleep(0.1)
    assert await system_ui(phone) == []
    assert [n.title for n in phone.notifications.active] == ["Build finished"]
    phone.notifications.expand()
    assert await texts(phone, "android:id/title") == ["Build finished"]


async def test_tapping_a_notification_opens_its_app_and_removes_it(phone: VirtualPhone) -> None:
    phone.notifications.post(CHROME, "Download complete", "report.pdf")
    card = find(await phone.dump_hierarchy(), id="heads_up_notification")
    assert card is not None
    await phone.tap(*card.center)
    assert phone.focused_activity() is not None and phone.focused_activity()[0] == CHROME  # type: ignore[index]
    assert phone.notifications.active == [] and await system_ui(phone) == []


async def test_the_shade_opens_from_the_status_bar_lists_newest_first_and_closes_with_back(phone: VirtualPhone) -> None:
    phone.notifications.post(MESSAGES, "Carol", "Lunch?", heads_up=0)
    phone.notifications.post(CHROME, "Download complete", "report.pdf", heads_up=0)
    assert await system_ui(phone) == []
    width = phone.display_size[0]
    await phone.swipe(width / 2, 10, width / 2, 900)
    assert phone.notifications.shade_open
    assert await texts(phone, "android:id/title") == ["Download complete", "Carol"]
    assert {n.attrs["package"] for n in nodes(await phone.dump_hierarchy())} == {SYSTEM_UI}  # it covers the app
    await phone.press_key(KEY_BACK)
    assert not phone.notifications.shade_open
    assert phone.focused_activity() == (LAUNCHER_PACKAGE, phone.apps[LAUNCHER_PACKAGE].main_activity)


async def test_a_sideways_swipe_dismisses_and_clear_all_empties_the_shade(phone: VirtualPhone) -> None:
    for title in ("One", "Two", "Three"):
        phone.notifications.post("com.android.shell", title, "", heads_up=0)
    phone.notifications.expand()
    row = next(n for n in await system_ui(phone) if n.attrs["resource-id"].endswith("expandableNotificationRow"))
    x, y = row.center
    await phone.swipe(x, y, x + 600, y)
    assert [n.title for n in phone.notifications.active] == ["Two", "One"]
    clear = find(await phone.dump_hierarchy(), text="Clear all")
    assert clear is not None
    await phone.tap(*clear.center)
    assert phone.notifications.active == [] and not phone.notifications.shade_open
    phone.notifications.expand()
    assert await texts(phone, "com.android.systemui:id/no_notifications") == ["No notifications"]


async def test_the_shell_posts_notifications_and_opens_and_closes_the_shade(phone: VirtualPhone) -> None:
    assert await shell(phone, "cmd notification post -t 'Security alert' alert 'Check your account'") == (0, "")
    [posted] = phone.notifications.active
    assert (posted.package, posted.title, posted.text) == ("com.android.shell", "Security alert", "Check your account")
    assert await texts(phone, "android:id/app_name_text") == ["Shell"]
    assert await shell(phone, "cmd statusbar expand-notifications") == (0, "")
    assert phone.notifications.shade_open
    assert await shell(phone, "cmd statusbar collapse") == (0, "")
    assert not phone.notifications.shade_open
    status, output = await shell(phone, "cmd notification post onlytag")
    assert status == 1 and "usage" in output
    status, output = await shell(phone, "cmd statusbar sideways")
    assert status == 1 and "Unknown command" in output


async def test_launching_an_app_closes_the_shade(phone: VirtualPhone) -> None:
    phone.notifications.expand()
    phone.launch(CHROME)
    assert not phone.notifications.shade_open


async def test_an_incoming_text_is_unread_and_its_notification_opens_the_thread(phone: VirtualPhone) -> None:
    app: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    conversation = app.receive("555-0187", "Running 10 minutes late")
    assert not conversation.read and conversation.messages[-1].text == "Running 10 minutes late"
    assert not conversation.messages[-1].outgoing and app.sent == []
    assert await texts(phone, "android:id/title") == ["Carol Nguyen"]   # the contact's name, not the number
    card = find(await phone.dump_hierarchy(), id="heads_up_notification")
    assert card is not None
    await phone.tap(*card.center)
    activity = phone.current_activity()
    assert (activity.app.package, activity.name, activity.params["number"]) == (MESSAGES, THREAD, "555-0187")
    bubbles = [n.attrs["text"] for n in nodes(await phone.dump_hierarchy())
               if n.attrs["resource-id"].endswith(":id/message_text")]
    assert bubbles[-1] == "Running 10 minutes late"
    assert conversation.read


async def test_a_published_page_opens_and_is_found_by_search_until_the_data_is_cleared(phone: VirtualPhone) -> None:
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    page = Page("https://news.example.org/today", "Today's local news", "Example News", "What happened today.",
                ("The bridge reopens on Monday.",))
    chrome.publish(page)
    chrome.navigate(page.url)
    dump = await phone.dump_hierarchy()
    assert find(dump, text="The bridge reopens on Monday.") is not None
    chrome.navigate("https://www.google.com/search?q=bridge+reopens")
    assert find(await phone.dump_hierarchy(), text="Today's local news") is not None
    phone.clear_data(CHROME)
    assert page not in chrome.pages
