"""What the hard Shop / Clock / Settings tasks share: readers of the apps' state that say exactly what differs
from what was expected (so a near miss fails with a reason), and the oracle's moves — reading every card of a
long list off the screen, as a person would, before choosing.

Oracles never look at the apps' data: they read the hierarchy dump (names, prices, ratings, days) and act
through input events, so what they choose proves the screen holds enough to choose right.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import SEED as ALARM_SEED
from relay_desktop.sim.apps.deskclock import Alarm, Clock
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.apps.store import Shop
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import KEY_BACK, Driver, OracleError, find, nodes

# What an over-eager agent does on an infeasible task: a scripted near miss the checker must reject.
NearMiss = Callable[[Driver], Awaitable[None]]
# (time "HH:MM", label, days, enabled): an alarm as a checker compares it.
AlarmRow = tuple[str, str, tuple[str, ...], bool]
SEEDED_ALARMS: tuple[AlarmRow, ...] = tuple((f"{h:02d}:{m:02d}", label, days, on)
                                            for h, m, on, label, days in ALARM_SEED)


def shop_of(phone: VirtualPhone) -> Shop:
    return phone.apps[SHOP]  # type: ignore[return-value]


def clock_of(phone: VirtualPhone) -> Clock:
    return phone.apps[CLOCK]  # type: ignore[return-value]


def exact(text: str) -> str:
    """Text as a checker compares it exactly: NFC (a pasted "ü" may arrive decomposed) and outer space trimmed."""
    return unicodedata.normalize("NFC", text).strip()


def loose(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def first_problem(*problems: str) -> str:
    return next((p for p in problems if p), "")


# ---------------------------------------------------------------- Shop

def basket(shop: Shop, items: dict[int, int]) -> str:
    return ", ".join(f"{qty} × {shop.get(pid).name}" for pid, qty in items.items()) or "nothing"


def cart_problem(phone: VirtualPhone, expected: dict[int, int]) -> str:
    """'' when nothing was ordered and the cart holds exactly ``expected``, else what differs."""
    shop = shop_of(phone)
    if shop.orders:
        placed = ", ".join(basket(shop, o.items) for o in shop.orders)
        return f"an order was placed ({placed}); nothing was to be bought"
    if shop.cart != expected:
        return f"the cart holds {basket(shop, shop.cart)}; expected {basket(shop, expected)}"
    return ""


def order_problem(phone: VirtualPhone, expected: dict[int, int], promo: str | None = None) -> str:
    """'' when exactly one order was placed, holding ``expected`` (and with ``promo`` applied, if given)."""
    shop = shop_of(phone)
    if len(shop.orders) != 1:
        return (f"{len(shop.orders)} orders were placed; expected one of {basket(shop, expected)} "
                f"(cart: {basket(shop, shop.cart)})")
    order = shop.orders[0]
    if order.items != expected:
        return f"order {order.number} holds {basket(shop, order.items)}; expected {basket(shop, expected)}"
    if promo is not None and order.promo != promo:
        return f"order {order.number} was placed {'with ' + order.promo if order.promo else 'without a promo code'}"
    return ""


# ---------------------------------------------------------------- Clock

def alarm_row(alarm: Alarm) -> AlarmRow:
    return alarm.time, exact(alarm.label), alarm.days, alarm.enabled


def describe_alarm(row: AlarmRow) -> str:
    time, label, days, on = row
    return f"{time} {label or '(no label)'} [{', '.join(days) or 'once'}] {'on' if on else 'off'}"


def alarms_diff(clock: Clock, expected: Iterable[AlarmRow]) -> str:
    """'' when Clock holds exactly the ``expected`` alarms, else which are missing (or changed) and which extra."""
    have, want = Counter(alarm_row(a) for a in clock.alarms), Counter(expected)
    parts = []
    if want - have:
        parts.append("missing or changed: " + "; ".join(map(describe_alarm, (want - have).elements())))
    if have - want:
        parts.append("unexpected: " + "; ".join(map(describe_alarm, (have - want).elements())))
    return " — ".join(parts)


def new_alarms(clock: Clock, before: Iterable[AlarmRow]) -> tuple[list[Alarm], str]:
    """The alarms beyond ``before`` — or, when any of ``before`` is gone or changed, [] and which."""
    left = Counter(before)
    extra = []
    for alarm in clock.alarms:
        row = alarm_row(alarm)
        if left[row]:
            left[row] -= 1
        else:
            extra.append(alarm)
    lost = list((+left).elements())
    if lost:
        return [], "existing alarms were deleted or changed: " + "; ".join(map(describe_alarm, lost))
    return extra, ""


# ---------------------------------------------------------------- reading cards off the screen

def cards(xml: str, card_id: str) -> list[dict[str, str]]:
    """Each card (a node with resource id ``card_id``) as {child id: its text}, plus 'desc:<id>' for
    content-descriptions and 'checked:<id>' for checkable children; cards cut off by the list's edge may lack
    fields."""
    found = []
    for element in ET.fromstring(xml).iter("node"):
        if not element.get("resource-id", "").endswith(f":id/{card_id}"):
            continue
        fields: dict[str, str] = {}
        for child in element.iter("node"):
            rid = child.get("resource-id", "").rsplit("/", 1)[-1]
            if not rid:
                continue
            fields.setdefault(rid, child.get("text", ""))
            fields.setdefault(f"desc:{rid}", child.get("content-desc", ""))
            if child.get("checkable") == "true":
                fields.setdefault(f"checked:{rid}", child.get("checked", ""))
        found.append(fields)
    return found


async def swipe_up(driver: Driver) -> None:
    """One swipe up in the middle of the screen (the list moves up, showing what is below)."""
    root = nodes(await driver.dump_hierarchy())[0].bounds
    x, bottom = (root[0] + root[2]) // 2, root[3]
    await driver.swipe(x, int(bottom * 0.7), x, int(bottom * 0.4), 400)


async def read_list(driver: Driver, card_id: str, required: tuple[str, ...], *,
                    max_swipes: int = 30) -> list[dict[str, str]]:
    """Every card of a long list, top to bottom, read by swiping until two swipes show nothing new. A card
    counts once all ``required`` fields are on screen; the first of them tells cards apart (a product's name)."""
    seen: dict[str, dict[str, str]] = {}
    stale = 0
    for _ in range(max_swipes):
        whole = [c for c in cards(await driver.dump_hierarchy(), card_id) if all(c.get(k) for k in required)]
        fresh = [c for c in whole if c[required[0]] not in seen]
        for card in whole:
            # A card first seen cut by the edge gains what a later look shows of it (a deal's old price).
            seen[card[required[0]]] = {**seen.get(card[required[0]], {}), **card}
        stale = 0 if fresh else stale + 1
        if stale >= 2:
            return list(seen.values())
        await swipe_up(driver)
    raise OracleError(f"the list of {card_id} never ended after {max_swipes} swipes")


def cents(text: str) -> int:
    """"$1,299.99" -> 129999."""
    digits = re.sub(r"\D", "", text)
    if not digits:
        raise OracleError(f"no price in {text!r}")
    return int(digits)


async def back_to(driver: Driver, tries: int = 6, **query: str) -> None:
    """Press BACK until something matching ``query`` is on screen."""
    for _ in range(tries):
        if find(await driver.dump_hierarchy(), **query) is not None:  # type: ignore[arg-type]
            return
        await driver.press_key(KEY_BACK)
    raise OracleError(f"pressed BACK {tries} times and never saw {query}")


async def text_of(driver: Driver, **query: str) -> str:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if node is None:
        raise OracleError(f"nothing on screen matches {query}")
    return node.attrs.get("text", "")


@dataclass(frozen=True)
class Listing:
    """A product card as a shopper reads it."""
    name: str
    price_cents: int
    rating: float
    was_cents: int = 0

    @property
    def saving_cents(self) -> int:
        return self.was_cents - self.price_cents if self.was_cents else 0


def listing(card: dict[str, str]) -> Listing | None:
    """The card's listing, or None while its price or rating is cut off by the list's edge."""
    if not (card.get("product_name") and card.get("product_price") and card.get("product_rating")):
        return None
    was = card.get("product_list_price", "")
    return Listing(card["product_name"], cents(card["product_price"]), float(card["product_rating"]),
                   cents(was) if was else 0)
