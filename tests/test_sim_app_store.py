"""The Shop app on the virtual phone: its tasks (checker, oracle, wrong paths) and the behaviour an agent
meets — a modal launch promo, a catalogue below the fold, the cart badge, checkout — observed through the
hierarchy dump and input events."""

from __future__ import annotations

import pytest

from relay_desktop.sim.apps.store import CART, CONFIRMATION, MAIN, PACKAGE, SEARCH, Shop
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.streams import ProcessIO
from relay_desktop.sim.tasks.base import KEY_BACK, Node, PhoneDriver, Task, find, nodes, scroll_to, tap_on
from relay_desktop.sim.tasks.shop_tasks import TASKS

TASKS_BY_ID = {task.id: task for task in TASKS}


@pytest.fixture
def phone() -> VirtualPhone:
    phone = VirtualPhone()
    phone.apps[Shop.package] = Shop(phone)  # the lead registers the app globally; until then, per test
    return phone


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def shop(phone: VirtualPhone) -> Shop:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


async def ids(driver: PhoneDriver, id: str, attr: str = "text") -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs[attr] for n in nodes(xml) if n.attrs.get("resource-id") == f"{PACKAGE}:id/{id}"]


async def must_find(driver: PhoneDriver, **query: str) -> Node:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, f"nothing matches {query}"
    return node


async def open_shop(driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="No thanks")


# ---------------------------------------------------------------- tasks


def test_task_ids_and_goals() -> None:
    assert [t.id for t in TASKS] == ["shop_third_product", "shop_scroll_product_20", "shop_checkout"]
    assert TASKS_BY_ID["shop_scroll_product_20"].goal == "Add the Fitness Tracker to the cart"
    assert TASKS_BY_ID["shop_checkout"].goal == "Buy the Bluetooth Speaker"
    assert all(t.apps == (PACKAGE,) for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_task_fails_before_and_passes_after_its_oracle(phone: VirtualPhone, task: Task) -> None:
    shop(phone).cart[7] = 2  # leftovers from an earlier run: setup must clear them
    task.setup(phone)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    assert shop(phone).cart == {} and shop(phone).orders == []
    before = task.check(phone)
    assert not before and before.detail
    await task.oracle(PhoneDriver(phone))
    after = task.check(phone)
    assert after, after.detail


async def test_adding_the_second_product_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["shop_third_product"]
    task.setup(phone)
    await open_shop(driver)
    await tap_on(driver, desc="Add Stainless Water Bottle to cart")
    result = task.check(phone)
    assert not result
    assert result.detail == "expected exactly one Yoga Mat in the cart; it holds 1 × Stainless Water Bottle"


async def test_adding_the_product_twice_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["shop_scroll_product_20"]
    task.setup(phone)
    await task.oracle(driver)
    await tap_on(driver, desc="Add Fitness Tracker to cart")
    result = task.check(phone)
    assert not result and result.detail.endswith("it holds 2 × Fitness Tracker")
    assert shop(phone).cart == {20: 2}


async def test_checkout_of_the_wrong_basket_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["shop_checkout"]
    task.setup(phone)
    await open_shop(driver)
    await tap_on(driver, desc="Add Wireless Earbuds to cart")
    node = await scroll_to(driver, desc="Add Bluetooth Speaker to cart")
    await driver.tap(*node.center)
    assert not task.check(phone).ok and task.check(phone).detail.startswith("no order was placed")
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")
    result = task.check(phone)
    assert not result
    assert result.detail == ("order SH-10421 contains 1 × Wireless Earbuds, 1 × Bluetooth Speaker, "
                             "not exactly one Bluetooth Speaker")


# ---------------------------------------------------------------- the promo pop-up


async def test_promo_is_a_dialog_window_above_the_app(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    assert phone.focused_activity() == (PACKAGE, MAIN)
    all_nodes = nodes(await driver.dump_hierarchy())
    title = next(i for i, n in enumerate(all_nodes) if n.attrs.get("text") == "Welcome!")
    shop_title = next(i for i, n in enumerate(all_nodes) if n.attrs.get("resource-id") == f"{PACKAGE}:id/app_title")
    assert shop_title < title  # the dialog window is dumped after (drawn over) the app window
    assert all_nodes[title].attrs["package"] == PACKAGE
    assert all_nodes[title].attrs["resource-id"] == "android:id/alertTitle"
    assert (await must_find(driver, id="message")).attrs["text"] == "Get 10% off your first order"
    assert (await must_find(driver, text="No thanks")).attrs["resource-id"] == "android:id/button2"
    assert (await must_find(driver, text="Shop now")).attrs["resource-id"] == "android:id/button1"


async def test_promo_blocks_taps_and_back_until_dismissed(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    xml = await driver.dump_hierarchy()
    buttons = [n for n in nodes(xml) if n.attrs.get("resource-id") == f"{PACKAGE}:id/add_to_cart"]
    assert len(buttons) >= 5  # the list is in the dump beneath the dialog...
    panel = next(n for n in nodes(xml) if n.attrs.get("resource-id") == f"{PACKAGE}:id/parentPanel").bounds
    actions = [n.bounds for n in nodes(xml) if n.attrs.get("text") in ("No thanks", "Shop now")]

    def inside(point: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
        return box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]

    under = [b for b in buttons if inside(b.center, panel)]
    assert under, "some Add to cart button should lie under the dialog"
    for button in buttons:
        assert not any(inside(button.center, box) for box in actions)
        await driver.tap(*button.center)  # ...but neither taps under nor outside the dialog reach it
    await driver.tap(40, 2000)
    await driver.press_key(KEY_BACK)
    assert shop(phone).cart == {}
    assert find(await driver.dump_hierarchy(), text="Welcome!") is not None
    assert phone.focused_activity() == (PACKAGE, MAIN)
    await tap_on(driver, text="Shop now")
    assert find(await driver.dump_hierarchy(), text="Welcome!") is None
    await driver.tap(*buttons[0].center)
    assert shop(phone).cart == {1: 1}


async def test_promo_returns_on_every_fresh_launch_only(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await driver.press_key(3)  # HOME, then the icon again: the running app comes back without the promo
    await driver.launch_app(PACKAGE)
    assert find(await driver.dump_hierarchy(), text="Welcome!") is None
    phone.force_stop(PACKAGE)
    await driver.launch_app(PACKAGE)
    assert find(await driver.dump_hierarchy(), text="Welcome!") is not None


# ---------------------------------------------------------------- catalogue, cart and checkout


async def test_products_below_the_fold_appear_only_after_scrolling(phone: VirtualPhone,
                                                                   driver: PhoneDriver) -> None:
    await open_shop(driver)
    names = await ids(driver, "product_name")
    assert names[:3] == ["Wireless Earbuds", "Stainless Water Bottle", "Yoga Mat"]
    assert "Fitness Tracker" not in names and "Alarm Clock" not in names
    assert len(names) < 10
    assert (await ids(driver, "product_price"))[:3] == ["$49.99", "$24.99", "$29.99"]
    assert (await ids(driver, "product_rating"))[:3] == ["4.5", "4.7", "4.6"]
    assert (await must_find(driver, desc="Rated 4.5 out of 5")).attrs["resource-id"] == f"{PACKAGE}:id/rating_bar"
    await scroll_to(driver, text="Fitness Tracker")
    after = await ids(driver, "product_name")
    assert "Fitness Tracker" in after and "Wireless Earbuds" not in after
    await scroll_to(driver, text="Alarm Clock")
    assert (await ids(driver, "product_name"))[-1] == "Alarm Clock"
    assert len(shop(phone).products) == 25


async def test_cart_badge_and_description_follow_the_cart(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    assert await ids(driver, "cart", "content-desc") == ["Cart, 0 items"]
    assert await ids(driver, "cart_badge") == []
    await tap_on(driver, desc="Add Yoga Mat to cart")
    assert await ids(driver, "cart", "content-desc") == ["Cart, 1 item"]
    assert await ids(driver, "cart_badge") == ["1"]
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, desc="Add Wireless Earbuds to cart")
    assert await ids(driver, "cart", "content-desc") == ["Cart, 3 items"]
    assert await ids(driver, "cart_badge") == ["3"]
    assert shop(phone).cart == {3: 2, 1: 1}


async def test_cart_lines_total_and_remove(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, desc="Add Wireless Earbuds to cart")
    await tap_on(driver, id="cart")
    assert phone.focused_activity() == (PACKAGE, CART)
    assert await ids(driver, "item_name") == ["Yoga Mat", "Wireless Earbuds"]
    assert await ids(driver, "item_quantity") == ["Qty 2 · $29.99 each", "Qty 1 · $49.99 each"]
    assert await ids(driver, "item_price") == ["$59.98", "$49.99"]
    assert await ids(driver, "total") == ["$109.97"]
    await tap_on(driver, desc="Remove Yoga Mat")
    assert await ids(driver, "item_name") == ["Wireless Earbuds"]
    assert await ids(driver, "total") == ["$49.99"]
    await tap_on(driver, desc="Remove Wireless Earbuds")
    assert await ids(driver, "empty_cart") == ["Your cart is empty"]
    assert find(await driver.dump_hierarchy(), text="Checkout") is None
    await driver.press_key(KEY_BACK)
    assert await ids(driver, "cart", "content-desc") == ["Cart, 0 items"]


async def test_checkout_records_the_order_and_empties_the_cart(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await tap_on(driver, desc="Add Smart Watch to cart")
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")
    assert phone.focused_activity() == (PACKAGE, CONFIRMATION)
    assert await ids(driver, "order_status") == ["Order placed"]
    assert await ids(driver, "order_number") == ["Order #SH-10421"]
    assert await ids(driver, "order_total") == ["Total paid $159.98"]
    orders = shop(phone).orders
    assert len(orders) == 1
    assert (orders[0].number, orders[0].items, orders[0].total_cents) == ("SH-10421", {4: 1, 3: 1}, 15998)
    assert shop(phone).cart == {}
    await tap_on(driver, text="Continue shopping")  # back to the catalogue, not to the emptied cart
    assert phone.focused_activity() == (PACKAGE, MAIN)
    assert await ids(driver, "cart", "content-desc") == ["Cart, 0 items"]
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")
    assert await ids(driver, "order_number") == ["Order #SH-10422"]
    assert [o.number for o in shop(phone).orders] == ["SH-10421", "SH-10422"]


async def test_reset_restores_an_empty_cart_and_no_orders(phone: VirtualPhone) -> None:
    app = shop(phone)
    app.cart[2] = 3
    app.checkout()
    assert app.orders
    phone.clear_data(PACKAGE)
    assert app.cart == {} and app.orders == []
    assert [p.name for p in app.products[:2]] == ["Wireless Earbuds", "Stainless Water Bottle"]
    assert (app.products[19].id, app.products[19].name, app.products[19].price_cents) == (20, "Fitness Tracker", 5499)


async def test_listed_as_a_third_party_package(phone: VirtualPhone) -> None:
    io, out, _err = ProcessIO.collecting(b"")
    assert await phone.run_shell("pm list packages -3", io) == 0
    assert f"package:{PACKAGE}" in out.decode().split()
    io, out, _err = ProcessIO.collecting(b"")
    await phone.run_shell("pm list packages -s", io)
    assert f"package:{PACKAGE}" not in out.decode().split()


# ---------------------------------------------------------------- deals, search and quantities


async def test_deals_show_the_was_price_and_percent_off(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await scroll_to(driver, text="Smart Watch")
    deal = await must_find(driver, id="deal")
    assert deal.attrs["content-desc"] == "Deal: 19% off, was $159.99"
    assert await ids(driver, "discount_badge") == ["19% off"]
    assert await ids(driver, "product_list_price") == ["Was $159.99"]
    watch = shop(phone).get(4)
    assert (watch.price_cents, watch.list_price_cents, watch.on_sale, watch.percent_off) == (12999, 15999, True, 19)
    assert [p.name for p in shop(phone).products if p.on_sale] == [
        "Smart Watch", "Coffee Grinder", "Running Shoes", "Noise-Cancelling Headphones", "Scented Candle",
        "Mechanical Keyboard", "Throw Blanket"]
    assert not shop(phone).get(1).on_sale and shop(phone).get(1).percent_off == 0
    await tap_on(driver, desc="Add Smart Watch to cart")     # the sale price is what the cart charges
    await tap_on(driver, id="cart")
    assert await ids(driver, "total") == ["$129.99"]


async def test_search_finds_products_by_word_start_live(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await tap_on(driver, desc="Search")
    assert phone.focused_activity() == (PACKAGE, SEARCH)
    assert phone.keyboard_shown and phone.focus_key == "search_query"
    assert await ids(driver, "search_hint") == ["Search by product name"]
    await driver.type_text("clocks")                            # a plural finds the singular
    assert await ids(driver, "product_name") == ["Wall Clock", "Alarm Clock"]
    assert await ids(driver, "result_count") == ["2 results for “clocks”"]
    await tap_on(driver, desc="Clear query")
    await driver.type_text("CANCEL")                          # any case, the start of a word after a hyphen
    assert await ids(driver, "product_name") == ["Noise-Cancelling Headphones"]
    await tap_on(driver, desc="Add Noise-Cancelling Headphones to cart")
    assert shop(phone).cart == {13: 1}
    assert await ids(driver, "cart", "content-desc") == ["Cart, 1 item"]
    await tap_on(driver, desc="Clear query")
    await driver.type_text("Nintendo Switch")
    assert await ids(driver, "product_name") == []
    assert await ids(driver, "no_results") == ["No results for “Nintendo Switch”"]
    await driver.press_key(KEY_BACK)                          # the keyboard first, then the search screen
    assert phone.focused_activity() == (PACKAGE, SEARCH) and not phone.keyboard_shown
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (PACKAGE, MAIN)


async def test_cart_stepper_stays_between_one_and_ten(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await open_shop(driver)
    await tap_on(driver, desc="Add Yoga Mat to cart")
    await tap_on(driver, id="cart")
    minus = await must_find(driver, desc="Decrease quantity of Yoga Mat")
    assert minus.attrs["enabled"] == "false" and minus.attrs["text"] == "−"
    await driver.tap(*minus.center)                           # disabled at 1: Remove takes a line out
    assert shop(phone).cart == {3: 1}
    for _ in range(12):
        await tap_on(driver, desc="Increase quantity of Yoga Mat")
    assert shop(phone).cart == {3: 10}
    assert (await must_find(driver, desc="Increase quantity of Yoga Mat")).attrs["enabled"] == "false"
    assert await ids(driver, "item_quantity") == ["Qty 10 · $29.99 each"]
    assert await ids(driver, "total") == ["$299.90"]
    await tap_on(driver, desc="Decrease quantity of Yoga Mat")
    assert shop(phone).cart == {3: 9}


async def test_a_deal_reads_its_price_before_the_old_one(phone: VirtualPhone, driver: PhoneDriver) -> None:
    """Issue 25: the Shop's label put "was $159.99" before the price."""
    from relay_desktop.perception import build_element_map, to_prompt_text

    await open_shop(driver)
    await scroll_to(driver, text="Smart Watch")
    text = to_prompt_text(build_element_map(await driver.dump_hierarchy()))
    watch = text[text.index("Smart Watch"):]
    assert watch.index("$129.99") < watch.index("$159.99"), watch[:300]
