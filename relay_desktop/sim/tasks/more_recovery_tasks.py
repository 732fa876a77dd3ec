"""More recovery tasks, one per kind in other apps than recovery_tasks.py: a rating prompt that pops up in
Keep once a note is opened, a promo-code screen whose Apply button the keyboard hides, an alarm at the end of
a long list, and a store with its promo up in front of a texting task."""

from __future__ import annotations

import re

from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import SEED as NOTES_SEED
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.apps.store import PROMO_CODES
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    KEY_HOME,
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    passed,
    scroll_to,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.comms_tasks import CAROL, _texted_once
from relay_desktop.sim.tasks.shop_tasks import _describe, _shop, name_of

PHONE_CASE = 8
WELCOME = "WELCOME10"
# Alarms a busy household keeps, on top of the factory two; "Bins out" is near the end of the list.
HOUSEHOLD: tuple[tuple[int, int, str], ...] = (
    (5, 45, "Early shift"), (7, 0, "Wake kids"), (7, 15, "Breakfast"), (7, 40, "School run"),
    (9, 0, "Standup"), (12, 30, "Lunch"), (13, 0, "Medicine"), (15, 10, "School pickup"),
    (17, 30, "Pick up groceries"), (19, 0, "Call Mum"), (21, 30, "Bins out"), (22, 45, "Lights out"),
)
BINS = (21, 30)


# ---------------------------------------------------------------- pop-up: Keep's rating prompt over the note

def _rating_setup(phone: VirtualPhone) -> None:
    fresh_start(phone, KEEP)
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    keep.rating_prompt = True


def _sunglasses_added(phone: VirtualPhone) -> CheckResult:
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    kept = [title for title, _ in NOTES_SEED if len(keep.titled(title)) != 1]
    if kept:
        return failed(f"notes were lost or duplicated: {', '.join(kept)}")
    body = keep.titled("Packing list")[0].body.lower()
    lost = [item for item in ("passport", "sunscreen", "rain jacket") if item not in body]
    if lost:
        return failed(f"the packing list lost {', '.join(lost)}")
    if "sunglasses" not in body:
        return failed(f"no sunglasses on the packing list: {body!r}")
    return passed("Sunglasses are on the packing list")


async def _dismiss_then_add(driver: Driver) -> None:
    await driver.launch_app(KEEP)
    await tap_on(driver, text="Packing list")
    await tap_on(driver, text="Not now", id="button2")  # the rating prompt, up over the note
    await type_into(driver, " Sunglasses", id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


# ---------------------------------------------------------------- keyboard: the promo code's Apply button

def _bought_with_code(phone: VirtualPhone) -> CheckResult:
    shop = _shop(phone)
    if len(shop.orders) != 1:
        return failed(f"{len(shop.orders)} orders were placed; expected one (cart: {_describe(shop, shop.cart)})")
    order = shop.orders[0]
    if order.items != {PHONE_CASE: 1}:
        return failed(f"the order holds {_describe(shop, order.items)}, not one {name_of(PHONE_CASE)}")
    if order.promo != WELCOME:
        return failed(f"the order was placed without the {WELCOME} code" if not order.promo
                      else f"the order used {order.promo}, not {WELCOME}")
    return passed(f"bought one {name_of(PHONE_CASE)} with {WELCOME} ({PROMO_CODES[WELCOME]}% off)")


async def _buy_with_code(driver: Driver) -> None:
    await driver.launch_app(SHOP)
    offer = find(await driver.dump_hierarchy(), id="promo_code")
    code = re.search(r"code (\w+)", offer.attrs["text"]) if offer else None
    if code is None:
        raise OracleError("the launch promo shows no code")
    await tap_on(driver, text="No thanks")
    node = await scroll_to(driver, desc=f"Add {name_of(PHONE_CASE)} to cart")
    await driver.tap(*node.center)
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Add promo code")
    await type_into(driver, code[1], id="promo_code_input")
    await driver.press_key(KEY_BACK)  # the keyboard hides Apply; BACK puts it away first
    await tap_on(driver, text="Apply")
    await tap_on(driver, text="Checkout")
    if find(await driver.dump_hierarchy(), text="Order placed") is None:
        raise OracleError("no order confirmation after Checkout")


# ---------------------------------------------------------------- long list: an alarm far down

def _household_alarms(phone: VirtualPhone) -> None:
    fresh_start(phone, CLOCK)
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    for hour, minute, label in HOUSEHOLD:
        clock.add(hour, minute, label=label)


def _bins_off(phone: VirtualPhone) -> CheckResult:
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    expected = {(6, 30, "Gym"): False, (8, 0, "Work"): True,
                **{(h, m, label): (h, m) != BINS for h, m, label in HOUSEHOLD}}
    found = {(a.hour, a.minute, a.label): a.enabled for a in clock.alarms}
    if set(found) != set(expected):
        changed = sorted(set(found) ^ set(expected))
        return failed(f"alarms were added, deleted or changed: {[f'{h:02d}:{m:02d} {lab}' for h, m, lab in changed]}")
    wrong = [f"{h:02d}:{m:02d} {label}" for (h, m, label), on in found.items() if on != expected[(h, m, label)]]
    if not wrong:
        return passed("the 21:30 Bins out alarm is off; the others are as they were")
    return failed(f"these alarms are in the wrong state: {', '.join(wrong)} (only Bins out should be off)")


async def _turn_off_bins(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await scroll_to(driver, text="Bins out", max_swipes=20)
    node = await scroll_to(driver, desc=f"Turn off {BINS[0]:02d}:{BINS[1]:02d} alarm", max_swipes=4)
    await driver.tap(*node.center)


# ---------------------------------------------------------------- wrong app: the shop is up, the task is a text

def _shop_in_front(phone: VirtualPhone) -> None:
    fresh_start(phone, SHOP, CONTACTS, MESSAGES)
    phone.launch(SHOP)


def _carol_on_my_way(phone: VirtualPhone) -> CheckResult:
    return _texted_once(phone, CAROL, "Carol Nguyen", lambda text: "on my way" in " ".join(text.lower().split()),
                        'saying "on my way"')


async def _text_carol(driver: Driver) -> None:
    await driver.press_key(KEY_HOME)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Carol Nguyen")
    await type_into(driver, "on my way", text="Text message")
    await tap_on(driver, desc="Send SMS")


TASKS: list[Task] = [
    Task("notes_rating_prompt", "Put sunglasses on my packing list", _rating_setup, _sunglasses_added,
         _dismiss_then_add, apps=(KEEP,), tags=("popup", "notes"), max_steps=16),
    Task("shop_promo_code", f"Buy a {name_of(PHONE_CASE)} with the welcome discount code",
         lambda phone: fresh_start(phone, SHOP), _bought_with_code, _buy_with_code, apps=(SHOP,),
         tags=("keyboard", "popup", "shop"), max_steps=26),
    Task("clock_long_list_bins", "Turn off my Bins out alarm", _household_alarms, _bins_off, _turn_off_bins,
         apps=(CLOCK,), tags=("long_list", "clock"), max_steps=14),
    Task("wrong_app_text_carol", 'Text Carol "on my way"', _shop_in_front, _carol_on_my_way, _text_carol,
         apps=(MESSAGES,), tags=("wrong_app", "messages"), max_steps=12),
]
