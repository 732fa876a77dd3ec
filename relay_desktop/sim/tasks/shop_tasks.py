"""Tasks in the Shop app: getting past a modal launch promo, scrolling a long catalogue, buying.

Checkers read :attr:`Shop.cart` and :attr:`Shop.orders`; oracles see only the dump and send input.
"""

from __future__ import annotations

from relay_desktop.sim.apps.store import CATALOGUE, PACKAGE, Shop
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    nodes,
    passed,
    scroll_to,
    tap_on,
)

THIRD = 3                       # product ids are positions in the catalogue, counting from 1
SCROLLED = 20
BOUGHT = 5


def name_of(product_id: int) -> str:
    return CATALOGUE[product_id - 1][0]


def _shop(phone: VirtualPhone) -> Shop:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


def _setup(phone: VirtualPhone) -> None:
    fresh_start(phone, PACKAGE)


def _describe(shop: Shop, items: dict[int, int]) -> str:
    return ", ".join(f"{qty} × {shop.get(pid).name}" for pid, qty in items.items()) or "nothing"


def _cart_holds_one(phone: VirtualPhone, product_id: int) -> CheckResult:
    shop = _shop(phone)
    if shop.cart == {product_id: 1}:
        return passed(f"the cart holds one {name_of(product_id)}")
    return failed(f"expected exactly one {name_of(product_id)} in the cart; it holds {_describe(shop, shop.cart)}")


def _bought_one(phone: VirtualPhone, product_id: int) -> CheckResult:
    shop = _shop(phone)
    if not shop.orders:
        return failed(f"no order was placed (cart: {_describe(shop, shop.cart)})")
    if len(shop.orders) > 1:
        return failed(f"{len(shop.orders)} orders were placed; expected one")
    order = shop.orders[0]
    if order.items != {product_id: 1}:
        return failed(f"order {order.number} contains {_describe(shop, order.items)}, "
                      f"not exactly one {name_of(product_id)}")
    return passed(f"order {order.number}: one {name_of(product_id)}")


# ---------------------------------------------------------------- oracles

async def _open_shop(driver: Driver) -> None:
    """Launch the app and close its promo the way a user must: with one of the dialog's own buttons."""
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="No thanks")
    if find(await driver.dump_hierarchy(), text="No thanks") is not None:
        raise OracleError("the promo pop-up is still up")


async def _add_third(driver: Driver) -> None:
    await _open_shop(driver)
    buttons = [n for n in nodes(await driver.dump_hierarchy())
               if n.attrs.get("resource-id") == f"{PACKAGE}:id/add_to_cart"]
    if len(buttons) < THIRD:
        raise OracleError(f"only {len(buttons)} Add to cart buttons on screen")
    await driver.tap(*buttons[THIRD - 1].center)


async def _add_by_name(driver: Driver, product_id: int) -> None:
    node = await scroll_to(driver, desc=f"Add {name_of(product_id)} to cart")
    await driver.tap(*node.center)


async def _add_twentieth(driver: Driver) -> None:
    await _open_shop(driver)
    await _add_by_name(driver, SCROLLED)


async def _buy_fifth(driver: Driver) -> None:
    await _open_shop(driver)
    await _add_by_name(driver, BOUGHT)
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")
    if find(await driver.dump_hierarchy(), text="Order placed") is None:
        raise OracleError("no order confirmation after Checkout")


TASKS: list[Task] = [
    Task("shop_third_product", "Dismiss the pop-up and add the third product to the cart", _setup,
         lambda phone: _cart_holds_one(phone, THIRD), _add_third, apps=(PACKAGE,), tags=("shop", "dialog"),
         max_steps=8),
    Task("shop_scroll_product_20", f"Add the {name_of(SCROLLED)} to the cart", _setup,
         lambda phone: _cart_holds_one(phone, SCROLLED), _add_twentieth, apps=(PACKAGE,),
         tags=("shop", "dialog", "scroll"), max_steps=20),
    Task("shop_checkout", f"Buy the {name_of(BOUGHT)}", _setup,
         lambda phone: _bought_one(phone, BOUGHT), _buy_fifth, apps=(PACKAGE,), tags=("shop", "dialog", "checkout"),
         max_steps=15),
]
