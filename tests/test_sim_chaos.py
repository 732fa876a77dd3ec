"""Chaos mode (sim/chaos.py): the interruptions as Google's adb sees them (dumps, resource ids, wording, compared
with real dumps where the collection has one), a seed replaying the same interruptions, the scripted solutions
getting past them (``sim --demo --chaos``), the untidy tasks' near misses, the command-line flags, and nothing
changed with chaos off."""

from __future__ import annotations

import asyncio
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from relay_desktop.cli.main import build_parser, main
from relay_desktop.cli.sim import demo
from relay_desktop.sim import chaos as chaos_module
from relay_desktop.sim.chaos import enable, scripted
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID
from relay_desktop.sim.tasks.base import ClearingDriver, PhoneDriver, find, nodes
from relay_desktop.sim.tasks.untidy_chaos_tasks import NEAR_MISSES
from relay_desktop.sim.tasks.untidy_chaos_tasks import TASKS as CHAOS_TASKS
from tests.conftest import AdbTestServer

MESSAGES, CONTACTS, KEEP = "com.google.android.apps.messaging", "com.google.android.contacts", "com.google.android.keep"
FIXTURES = Path(__file__).parent / "fixtures" / "ui_dumps"
SHARED_DUMPS = Path(__file__).resolve().parents[2] / "shared" / "data" / "ui-dumps"


async def _shell(adb_server: AdbTestServer, sim: VirtualPhoneService, *args: str) -> str:
    done = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "shell", *args)
    return done.stdout.decode()


async def _dump(adb_server: AdbTestServer, sim: VirtualPhoneService) -> str:
    """``adb exec-out uiautomator dump /dev/tty``: the XML, without the line uiautomator adds after it."""
    done = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "exec-out", "uiautomator", "dump", "/dev/tty")
    text = done.stdout.decode()
    return text[text.index("<?xml"):text.rindex("</hierarchy>") + len("</hierarchy>")]


async def _tap(adb_server: AdbTestServer, sim: VirtualPhoneService, xml: str, **query: str) -> None:
    node = find(xml, **query)  # type: ignore[arg-type]
    assert node is not None, f"nothing matches {query}"
    await _shell(adb_server, sim, "input", "tap", *map(str, node.center))


def _id_path(xml: str, resource_id: str) -> list[str]:
    """The resource ids from the root down to the node with ``resource_id`` (uiautomator or Appium format)."""
    root = ET.fromstring(xml)
    parents = {child: parent for parent in root.iter() for child in parent}
    node = next(e for e in root.iter() if e.get("resource-id") == resource_id)
    path = []
    while node is not None:
        if node.get("resource-id"):
            path.append(node.get("resource-id", ""))
        node = parents.get(node)
    return path[::-1]


# ---------------------------------------------------------------- the dialogs, through Google's adb

async def test_an_app_s_first_launch_asks_for_its_permission_as_android_14_does(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    chaos = enable(sim.phone, 1)
    await _shell(adb_server, sim, "monkey", "-p", MESSAGES, "-c", "android.intent.category.LAUNCHER", "1")
    xml = await _dump(adb_server, sim)
    asking = [n for n in nodes(xml) if n.attrs["package"] == "com.android.permissioncontroller"]
    ids = {n.attrs["resource-id"] for n in asking}
    assert {f"com.android.permissioncontroller:id/{name}" for name in (
        "grant_singleton", "grant_dialog", "permission_message", "permission_allow_button",
        "permission_deny_button")} <= ids
    assert find(xml, id="permission_message").attrs["text"] == "Allow Messages to send you notifications?"  # type: ignore[union-attr]
    assert find(xml, id="permission_deny_button").attrs["text"] == "Don\u2019t allow"  # type: ignore[union-attr]
    assert find(xml, id="permission_allow_button").attrs["class"] == "android.widget.Button"  # type: ignore[union-attr]
    await _shell(adb_server, sim, "input", "keyevent", "3")          # HOME: the request goes with its app…
    assert "permissioncontroller" not in await _dump(adb_server, sim)
    await _shell(adb_server, sim, "monkey", "-p", MESSAGES, "-c", "android.intent.category.LAUNCHER", "1")
    assert "permission_allow_button" in await _dump(adb_server, sim)   # …and is there again when it is back
    await _shell(adb_server, sim, "input", "text", "hello")           # keys go to the dialog, not the app
    await _shell(adb_server, sim, "input", "tap", "540", "2000")      # a tap outside: dismissed, no answer
    assert chaos.permissions == {MESSAGES: "dismissed"}
    assert "permissioncontroller" not in await _dump(adb_server, sim)
    await _shell(adb_server, sim, "pm", "clear", MESSAGES)           # cleared data: it asks again
    await _shell(adb_server, sim, "monkey", "-p", MESSAGES, "-c", "android.intent.category.LAUNCHER", "1")
    await _tap(adb_server, sim, await _dump(adb_server, sim), id="permission_allow_button")
    assert chaos.permissions == {MESSAGES: "granted"}
    assert chaos.shown.count(f"permission {MESSAGES}") == 2


async def test_isn_t_responding_is_the_real_dialog_and_wait_finishes_the_save_close_app_loses_it(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    task = TASKS_BY_ID["chaos_anr_while_saving"]
    real = (FIXTURES / "appium_anr_dialog__shirates-core.xml").read_text()
    for answer in ("aerr_wait", "aerr_close"):
        task.setup(sim.phone)
        await _shell(adb_server, sim, "monkey", "-p", CONTACTS, "-c", "android.intent.category.LAUNCHER", "1")
        for query, text in (({"desc": "Create contact"}, ""), ({"text": "First name"}, "Priya"),
                            ({"text": "Last name"}, "Raman"), ({"text": "Phone"}, "555-0199"),
                            ({"text": "Save"}, "")):
            await _tap(adb_server, sim, await _dump(adb_server, sim), **query)
            if text:
                await _shell(adb_server, sim, "input", "text", text)
        xml = await _dump(adb_server, sim)
        for rid in ("android:id/alertTitle", "android:id/aerr_close", "android:id/aerr_wait"):
            assert _id_path(xml, rid) == _id_path(real, rid), rid      # the real dialog's structure
        title, close, wait = (find(xml, id=i) for i in ("alertTitle", "aerr_close", "aerr_wait"))
        assert title is not None and title.attrs["text"] == "Contacts isn't responding"
        assert close is not None and wait is not None and (close.attrs["text"], wait.attrs["text"]) == ("Close app",
                                                                                                         "Wait")
        assert close.attrs["package"] == "android" and close.attrs["class"] == "android.widget.Button"
        assert close.bounds[1] < wait.bounds[1]                             # Close app above Wait, as in the dump
        await _shell(adb_server, sim, "input", "keyevent", "4")             # not cancelable: BACK does nothing
        await _tap(adb_server, sim, await _dump(adb_server, sim), id=answer)
        check = task.check(sim.phone)
        assert check.ok == (answer == "aerr_wait"), check.detail
    focus = await _shell(adb_server, sim, "dumpsys", "window")
    assert "com.android.launcher3" in re.search(r"mCurrentFocus=.*", focus).group(0)  # type: ignore[union-attr]


async def test_a_heads_up_text_slides_over_the_app_for_a_few_seconds(
        adb_server: AdbTestServer, sim: VirtualPhoneService, monkeypatch: pytest.MonkeyPatch) -> None:
    enable(sim.phone, 2).heads_up("Mom", "Call me when you get a chance")
    xml = await _dump(adb_server, sim)
    card = find(xml, id="heads_up_notification")
    assert card is not None and card.attrs["package"] == "com.android.systemui" and card.bounds[1] < 300
    assert find(xml, id="title").attrs["text"] == "Mom"  # type: ignore[union-attr]
    assert find(xml, id="app_name_text").attrs["text"] == "Messages"  # type: ignore[union-attr]
    import time

    later = time.monotonic() + 9
    monkeypatch.setattr("relay_desktop.sim.notifications.time.monotonic", lambda: later)
    assert "heads_up_notification" not in await _dump(adb_server, sim)   # gone from over the app…
    assert [n.title for n in sim.phone.notifications.active] == ["Mom"]  # …into the shade


async def test_the_low_battery_warning_is_systemui_s_with_its_actions(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    enable(sim.phone, 3).low_battery()
    xml = await _dump(adb_server, sim)
    assert find(xml, id="title").attrs["text"] == "Turn on Battery Saver?"  # type: ignore[union-attr]
    assert find(xml, id="text").attrs["text"].startswith("You have 15% battery left. Battery Saver")  # type: ignore[union-attr]
    assert find(xml, id="app_name_text").attrs["text"] == "Settings"  # type: ignore[union-attr]
    actions = [n.attrs["text"] for n in nodes(xml) if n.attrs["resource-id"] == "android:id/action0"]
    assert actions == ["No thanks", "Turn on"]
    assert "level: 15" in await _shell(adb_server, sim, "dumpsys", "battery")
    await _tap(adb_server, sim, xml, text="Turn on")
    assert (await _shell(adb_server, sim, "settings", "get", "global", "low_power")).strip() == "1"


async def test_gboard_s_suggestion_strip_dumps_as_gboard_s_and_a_candidate_replaces_the_word(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    scripted(sim.phone).suggestions_on = True
    await _shell(adb_server, sim, "am", "start", "-a", "android.intent.action.SENDTO", "-d", "smsto:555-0175")
    await _tap(adb_server, sim, await _dump(adb_server, sim), text="Text message")
    await _shell(adb_server, sim, "input", "text", "Table%sbooked%sat%sKinoko")
    xml = await _dump(adb_server, sim)
    strip = "com.google.android.inputmethod.latin:id/softkey_holder_fixed_candidates"
    words = [n for n in nodes(xml) if n.attrs["content-desc"] in ("Kinoko", "Kimono")]
    assert [n.attrs["content-desc"] for n in words] == ["Kinoko", "Kimono"]
    for node in words:
        assert (node.attrs["class"], node.attrs["resource-id"], node.attrs["clickable"], node.attrs["text"]) == \
            ("android.widget.FrameLayout", "", "true", "")
    gboard = "com.google.android.inputmethod.latin:id/"
    wanted = [f"{gboard}keyboard_holder", f"{gboard}keyboard_header_view_holder", strip]
    assert [rid for rid in _id_path(xml, strip) if rid in wanted] == wanted
    real = SHARED_DUMPS / "avito_search_gboard_ru__kram1k-android_avito_parsing.xml"
    if real.exists():       # a real Gboard dump (research collection, read at run time only)
        real_xml = real.read_text()
        assert [rid for rid in _id_path(real_xml, strip) if rid in wanted] == wanted
        candidate = next(n for n in nodes(real_xml) if n.attrs.get("content-desc") == "shop")
        assert (candidate.attrs["class"], candidate.attrs["resource-id"]) == ("android.widget.FrameLayout", "")
    await _tap(adb_server, sim, xml, desc="Kimono")
    field = sim.phone.input.focused_field()
    assert field is not None and field.text == "Table booked at Kimono "


async def test_chrome_s_cookie_banner_lies_over_the_page_inside_its_web_view(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    TASKS_BY_ID["chaos_cookie_banner_over_answer"].setup(sim.phone)
    await _shell(adb_server, sim, "am", "start", "-a", "android.intent.action.VIEW", "-d",
                 "https://www.harbourlibrary.org/hours")
    xml = await _dump(adb_server, sim)
    root = ET.fromstring(xml)
    web = next(e for e in root.iter("node") if e.get("class") == "android.webkit.WebView")
    inside = {e.get("text") for e in web.iter("node")}
    assert {"We value your privacy", "Reject all", "Accept all"} <= inside
    assert any("Saturday 10 am to 4 pm" in (t or "") for t in inside)      # the answer, under the banner
    await _tap(adb_server, sim, xml, text="Reject all")
    chrome: Any = sim.phone.apps["com.android.chrome"]
    assert chrome.cookie_choices == {"harbourlibrary.org": "rejected"}
    assert "We value your privacy" not in await _dump(adb_server, sim)


async def test_play_s_review_card_and_an_app_s_what_s_new_sheet() -> None:
    phone = VirtualPhone()
    chaos = scripted(phone)
    chaos.prompt_on_launch("com.relay.shop", "review")
    phone.launch("com.relay.shop")
    xml = await phone.dump_hierarchy()
    card = [n for n in nodes(xml) if n.attrs["package"] == "com.android.vending"]
    assert {"Rate this app", "Tell others what you think", "Not now", "Submit"} <= {n.attrs["text"] for n in card}
    assert [n.attrs["content-desc"] for n in card if "star" in n.attrs["content-desc"]] == \
        ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"]
    assert find(xml, text="Submit").attrs["enabled"] == "false"  # type: ignore[union-attr]
    driver = PhoneDriver(phone)
    await driver.tap(*find(xml, desc="4 stars").center)  # type: ignore[union-attr]
    await driver.tap(*find(await phone.dump_hierarchy(), text="Submit").center)  # type: ignore[union-attr]
    assert chaos.reviews == {"com.relay.shop": 4}

    chaos.prompt_on_launch(KEEP, "whats_new")
    phone.launch(KEEP)
    xml = await phone.dump_hierarchy()
    assert find(xml, id="design_bottom_sheet").attrs["package"] == KEEP  # type: ignore[union-attr]
    assert find(xml, id="whats_new_title").attrs["text"] == "What\u2019s new in Keep Notes"  # type: ignore[union-attr]
    await driver.tap(540, 400)                     # a tap above a bottom sheet closes it, as Material's does
    assert find(await phone.dump_hierarchy(), id="design_bottom_sheet") is None


# ---------------------------------------------------------------- a seed, the demo, the tasks

async def _solve_all(seed: int, tasks: list[Any]) -> list[str]:
    phone = VirtualPhone()
    chaos = enable(phone, seed)
    for task in tasks:
        task.setup(phone)
        chaos_module.begin_task(phone, task.id)
        driver = ClearingDriver(PhoneDriver(phone))
        await task.oracle(driver)
        await driver.settle()
        assert task.check(phone).ok, task.id
    return chaos.shown


async def test_a_seed_brings_the_same_interruptions_at_the_same_moments_and_another_seed_others() -> None:
    tasks = [t for t in ALL_TASKS if t.id in ("contacts_add_alice", "clock_alarm_730", "shop_checkout", "wifi_on",
                                               "share_carol_number_with_bob", "notes_create_groceries",
                                               "contacts_delete_dave", "clock_disable_8am", "notes_delete_packing")]
    first, again, other = await _solve_all(7, tasks), await _solve_all(7, tasks), await _solve_all(8, tasks)
    assert first == again and first != other
    assert len({what.split(" ")[0] for what in first}) >= 3      # several kinds of interruption


async def test_the_demo_solves_tasks_through_adb_in_chaos_mode(
        adb_server: AdbTestServer, sim: VirtualPhoneService, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    chosen = [*CHAOS_TASKS, *(t for t in ALL_TASKS if t.id in ("contacts_add_alice", "clock_alarm_730",
                                                              "shop_checkout", "share_carol_number_with_bob"))]
    monkeypatch.setattr("relay_desktop.sim.tasks.ALL_TASKS", chosen)
    enable(sim.phone, 3)
    assert await demo(sim, adb_server.server())
    out = capsys.readouterr().out
    assert f"{len(chosen)}/{len(chosen)} tasks solved" in out and "got past: " in out


@pytest.mark.parametrize("task", CHAOS_TASKS, ids=[t.id for t in CHAOS_TASKS])
async def test_each_untidy_task_is_interrupted_midway_and_its_near_miss_fails(task: Any) -> None:
    assert "untidy" in task.tags
    phone = VirtualPhone()
    task.setup(phone)
    assert not task.check(phone).ok
    await task.oracle(PhoneDriver(phone))
    assert task.check(phone).ok, task.check(phone).detail
    shown = phone.chaos.shown if phone.chaos is not None else []
    chrome: Any = phone.apps["com.android.chrome"]
    assert shown or chrome.cookie_choices, f"{task.id}: nothing interrupted it"
    task.setup(phone)
    await NEAR_MISSES[task.id](PhoneDriver(phone))
    missed = task.check(phone)
    assert not missed.ok, f"{task.id}: the near miss passes ({missed.detail})"


# ---------------------------------------------------------------- off by default; the flags; the agent

async def test_with_chaos_off_nothing_comes_up_and_a_task_s_script_ends_with_it() -> None:
    phone = VirtualPhone()
    for package in (MESSAGES, KEEP, "com.relay.shop", "com.google.android.deskclock", "com.android.chrome"):
        phone.launch(package)
        assert phone.system_dialog is None and phone.chaos is None
    phone.launch(MESSAGES)
    await PhoneDriver(phone).tap(*find(await phone.dump_hierarchy(), text="Grace Liu").center)  # type: ignore[union-attr]
    await phone.input_text("Table booked at Kinoko")
    assert "softkey_holder_fixed_candidates" not in await phone.dump_hierarchy()
    TASKS_BY_ID["chaos_anr_while_saving"].setup(phone)
    assert phone.chaos is not None
    TASKS_BY_ID["contacts_add_alice"].setup(phone)        # the next task: the script is gone, chaos off again
    assert phone.chaos is None


def test_the_flags_parse_and_run_wants_the_virtual_phone() -> None:
    parser = build_parser()
    assert parser.parse_args(["sim", "--demo", "--chaos", "7"]).chaos == 7
    assert parser.parse_args(["bench", "--chaos", "3"]).chaos == 3
    assert parser.parse_args(["run", "Turn on Wi-Fi", "--sim", "--chaos", "5"]).chaos == 5
    assert parser.parse_args(["sim"]).chaos is None and parser.parse_args(["bench"]).chaos is None
    with pytest.raises(SystemExit):
        parser.parse_args(["sim", "--chaos", "lots"])
    assert main(["run", "Turn on Wi-Fi", "--chaos", "5"]) == 2


def test_bench_and_run_put_their_virtual_phones_in_chaos_mode(adb_server: AdbTestServer,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    seeds: list[int] = []

    def recording(phone: VirtualPhone, seed: int) -> Any:
        seeds.append(seed)
        return enable(phone, seed)

    monkeypatch.setattr(chaos_module, "enable", recording)
    assert main(["bench", "--task", "wifi_on", "--chaos", "5", "--fallback", "--no-mirror", "--no-history",
                 "--max-steps", "3", "--json"]) == 0
    main(["run", "Turn on Wi-Fi", "--sim", "--chaos", "4", "--fallback", "--no-mirror", "--max-steps", "3"])
    assert seeds == [5, 4]


def test_the_agent_has_no_knowledge_of_chaos_mode() -> None:
    package = Path(__file__).resolve().parents[1] / "relay_desktop"
    for part in ("agent", "perception", "llm", "mirror", "routines"):
        for source in (package / part).rglob("*.py"):
            text = source.read_text()
            assert "sim.chaos" not in text and "ClearingDriver" not in text and "clear_interruptions" not in text, \
                source
