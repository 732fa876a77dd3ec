"""Hard tasks in the Shop: choosing by rating, price or saving across the whole catalogue, trimming a full cart,
an order with quantities and a code, an ambiguous "the clock", and a product the shop does not sell.

The catalogue is 25 cards long, so every comparison means reading all of it; the oracles do exactly that
(reading names, prices, ratings and "Was" prices off the dump) before they choose.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    nodes,
    passed,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.hard_device_common import (
    Listing,
    NearMiss,
    back_to,
    basket,
    cart_problem,
    listing,
    order_problem,
    read_list,
    shop_of,
    text_of,
)

HARD = "hard"
SKILLET, KEYBOARD, BOTTLE, ALARM_CLOCK, WALL_CLOCK = 21, 19, 2, 25, 16
EARBUDS, YOGA_MAT, CAMERA, MUGS, CANDLE, ORGANIZER, SUNGLASSES, SMART_WATCH = 1, 3, 7, 14, 15, 17, 23, 4
LEFT_IN_CART = {EARBUDS: 1, YOGA_MAT: 2, CAMERA: 1, MUGS: 1, ORGANIZER: 1, SUNGLASSES: 1}


def _fresh(then: Callable[[VirtualPhone], None] | None = None) -> Callable[[VirtualPhone], None]:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, SHOP)
        if then is not None:
            then(phone)

    return setup


def _cart_is(expected: dict[int, int], why: str = "") -> Callable[[VirtualPhone], CheckResult]:
    def check(phone: VirtualPhone) -> CheckResult:
        problem = cart_problem(phone, expected)
        if problem:
            return failed(problem + (f" ({why})" if why else ""))
        return passed(f"the cart holds {basket(shop_of(phone), expected)} and nothing was ordered")

    return check


def _order_is(phone: VirtualPhone, expected: dict[int, int], promo: str | None = None) -> CheckResult:
    problem = order_problem(phone, expected, promo)
    if problem:
        return failed(problem)
    return passed(f"ordered {basket(shop_of(phone), expected)}" + (f" with {promo}" if promo else ""))


# ---------------------------------------------------------------- oracle moves

async def enter_shop(driver: Driver) -> str:
    """Open the Shop on its catalogue, closing the launch promo if it shows; returns the promo's code ('' if none)."""
    await driver.launch_app(SHOP)
    code = ""
    offer = find(await driver.dump_hierarchy(), id="promo_code")
    if offer is not None:
        found = re.search(r"code (\w+)", offer.attrs.get("text", ""))
        code = found[1] if found else ""
        await tap_on(driver, text="No thanks")
    await back_to(driver, id="section_title")
    return code


async def read_catalogue(driver: Driver) -> list[Listing]:
    read = [listing(card) for card in await read_list(driver, "product",
                                                      ("product_name", "product_price", "product_rating"))]
    products = [item for item in read if item is not None]
    if len(products) < 20:
        raise OracleError(f"read only {len(products)} products off the catalogue")
    return products


async def search_for(driver: Driver, query: str) -> list[str]:
    """Type ``query`` into the Shop's search (opening it, or clearing the last query); the names found."""
    xml = await driver.dump_hierarchy()
    if find(xml, desc="Clear query") is not None:
        await tap_on(driver, desc="Clear query")
    elif find(xml, id="search_src_text") is None:
        await tap_on(driver, desc="Search")
    await driver.type_text(query)
    return [n.attrs.get("text", "") for n in nodes(await driver.dump_hierarchy())
            if n.attrs.get("resource-id", "").endswith(":id/product_name")]


async def add_by_search(driver: Driver, name: str) -> None:
    if name not in await search_for(driver, name):
        raise OracleError(f"searching for {name!r} does not find it")
    await tap_on(driver, desc=f"Add {name} to cart")


# ---------------------------------------------------------------- compare: best rated under $40

async def _add_best_rated_under_40(driver: Driver) -> None:
    await enter_shop(driver)
    affordable = [p for p in await read_catalogue(driver) if p.price_cents < 4000]
    best = max(p.rating for p in affordable)
    top = [p for p in affordable if p.rating == best]
    if len(top) != 1:
        raise OracleError(f"{len(top)} products under $40 share the best rating {best}")
    await add_by_search(driver, top[0].name)


# ---------------------------------------------------------------- compare: the biggest saving in dollars

async def _add_biggest_saving(driver: Driver) -> None:
    await enter_shop(driver)
    deals = sorted((p for p in await read_catalogue(driver) if p.was_cents), key=lambda p: p.saving_cents)
    if len(deals) < 2 or deals[-1].saving_cents == deals[-2].saving_cents:
        raise OracleError(f"no single biggest saving among {deals}")
    await add_by_search(driver, deals[-1].name)


# ---------------------------------------------------------------- compare and buy: cheapest of 4.7 stars or more

async def _buy_cheapest_well_rated(driver: Driver) -> None:
    await enter_shop(driver)
    good = sorted((p for p in await read_catalogue(driver) if p.rating >= 4.7), key=lambda p: p.price_cents)
    if len(good) > 1 and good[0].price_cents == good[1].price_cents:
        raise OracleError(f"two products rated 4.7+ share the lowest price: {good[:2]}")
    await add_by_search(driver, good[0].name)
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")
    if find(await driver.dump_hierarchy(), text="Order placed") is None:
        raise OracleError("no order confirmation after Checkout")


# ---------------------------------------------------------------- ambiguous: which clock?

async def _add_alarm_clock(driver: Driver) -> None:
    await enter_shop(driver)
    clocks = await search_for(driver, "clock")
    if sorted(clocks) != ["Alarm Clock", "Wall Clock"]:
        raise OracleError(f"searching 'clock' finds {clocks}, not the two clocks to ask about")
    # The user, asked which one, answered: the alarm clock.
    await tap_on(driver, desc="Add Alarm Clock to cart")


# ---------------------------------------------------------------- many items: empty the cart but for the yoga mats

def _leftover_cart(phone: VirtualPhone) -> None:
    shop_of(phone).cart.update(LEFT_IN_CART)


async def _keep_only_yoga_mats(driver: Driver) -> None:
    await enter_shop(driver)
    await tap_on(driver, id="cart")
    for _ in range(len(LEFT_IN_CART) + 1):
        names = [n.attrs.get("text", "") for n in nodes(await driver.dump_hierarchy())
                 if n.attrs.get("resource-id", "").endswith(":id/item_name")]
        others = [name for name in names if name != "Yoga Mat"]
        if not others:
            if names != ["Yoga Mat"]:
                raise OracleError(f"the cart shows {names}, not the yoga mats alone")
            return
        await tap_on(driver, desc=f"Remove {others[0]}")   # the topmost line is always wholly on screen
    raise OracleError("the cart never emptied down to the yoga mats")


# ---------------------------------------------------------------- many items: quantities and the welcome code

async def _order_for_the_party(driver: Driver) -> None:
    code = await enter_shop(driver)
    if not code:
        raise OracleError("the launch promo showed no code")
    await add_by_search(driver, "Ceramic Mug Set")
    await add_by_search(driver, "Scented Candle")
    await tap_on(driver, id="cart")
    await tap_on(driver, desc="Increase quantity of Ceramic Mug Set")
    for _ in range(2):
        await tap_on(driver, desc="Increase quantity of Scented Candle")
    quantities = [n.attrs.get("text", "") for n in nodes(await driver.dump_hierarchy())
                  if n.attrs.get("resource-id", "").endswith(":id/item_quantity")]
    if [q.split(" ·")[0] for q in quantities] != ["Qty 2", "Qty 3"]:
        raise OracleError(f"the cart shows {quantities}")
    await tap_on(driver, text="Add promo code")
    await type_into(driver, code, id="promo_code_input")
    await driver.press_key(KEY_BACK)                      # the keyboard hides Apply
    await tap_on(driver, text="Apply")
    await tap_on(driver, text="Checkout")
    if find(await driver.dump_hierarchy(), text="Order placed") is None:
        raise OracleError("no order confirmation after Checkout")


# ---------------------------------------------------------------- infeasible: a product the shop does not sell

def _nothing_bought_or_carted(phone: VirtualPhone) -> CheckResult:
    problem = cart_problem(phone, {})
    return failed(problem) if problem else passed("the cart is empty and nothing was ordered")


async def _look_for_a_switch(driver: Driver) -> None:
    await enter_shop(driver)
    for query in ("Nintendo Switch", "Nintendo", "console"):
        found = await search_for(driver, query)
        if found:
            raise OracleError(f"searching {query!r} finds {found}")
        if not (await text_of(driver, id="no_results")).startswith("No results"):
            raise OracleError(f"searching {query!r} shows no 'No results'")
    await back_to(driver, id="section_title")


async def _add_a_smart_watch_instead(driver: Driver) -> None:
    await enter_shop(driver)
    await add_by_search(driver, "Smart Watch")


TASKS: list[Task] = [
    Task("hard_shop_best_rated_under_40", "Add the best-rated product under $40 to my cart",
         _fresh(), _cart_is({SKILLET: 1}), _add_best_rated_under_40, apps=(SHOP,), tags=(HARD, "compare"),
         max_steps=30),
    Task("hard_shop_biggest_saving", "Which deal in the Shop saves me the most money? Put that one in my cart",
         _fresh(), _cart_is({KEYBOARD: 1}, "the biggest saving in dollars is the keyboard's $60"),
         _add_biggest_saving, apps=(SHOP,), tags=(HARD, "compare", "paraphrase"), max_steps=30),
    Task("hard_shop_buy_cheapest_top_rated", "Buy the cheapest product that has at least 4.7 stars",
         _fresh(), lambda phone: _order_is(phone, {BOTTLE: 1}), _buy_cheapest_well_rated, apps=(SHOP,),
         tags=(HARD, "compare"), max_steps=30),
    Task("hard_shop_which_clock", "Put the clock in my cart", _fresh(),
         _cart_is({ALARM_CLOCK: 1}, "the user, asked, wants the alarm clock"), _add_alarm_clock, apps=(SHOP,),
         tags=(HARD, "ask_user"), max_steps=25, answers=("The alarm clock, for my bedside table",), must_ask=True),
    Task("hard_shop_clear_cart_but_yoga", "Clear out my shopping cart, except for the yoga mats",
         _fresh(_leftover_cart), _cart_is({YOGA_MAT: 2}), _keep_only_yoga_mats, apps=(SHOP,),
         tags=(HARD, "many_items", "paraphrase"), max_steps=25),
    Task("hard_shop_party_order",
         "Order 2 Ceramic Mug Sets and 3 Scented Candles, and use the welcome discount code",
         _fresh(), lambda phone: _order_is(phone, {MUGS: 2, CANDLE: 3}, "WELCOME10"), _order_for_the_party,
         apps=(SHOP,), tags=(HARD, "many_items"), max_steps=30),
    Task("hard_shop_switch_infeasible", "Add a Nintendo Switch to my cart in the Shop app",
         _fresh(), _nothing_bought_or_carted, _look_for_a_switch, apps=(SHOP,), tags=(HARD, "infeasible"),
         max_steps=25, expected_outcome="failed"),
]


DOING_IT_ANYWAY: dict[str, NearMiss] = {"hard_shop_switch_infeasible": _add_a_smart_watch_instead}
