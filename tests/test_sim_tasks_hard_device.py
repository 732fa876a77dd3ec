"""Near misses for the hard Shop / Clock / Settings tasks: the wrong product, the tempting-but-wrong comparison,
half the work, a new alarm instead of the edited one, a label almost right, a setting that silences the alarm
too — none may pass their checkers. Each starts from the task's own setup and, where an agent could make that
mistake on screen, makes it through the screen (the in-process driver)."""

from __future__ import annotations

import unicodedata

import pytest

from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import TASKS_BY_ID, PhoneDriver, Task
from relay_desktop.sim.tasks.base import scroll_to, tap_on
from relay_desktop.sim.tasks.hard_clock_tasks import add_alarm, label_new_alarm, open_alarms, retime
from relay_desktop.sim.tasks.hard_device_common import clock_of, shop_of
from relay_desktop.sim.tasks.hard_device_tasks import DOING_IT_ANYWAY, TASKS
from relay_desktop.sim.tasks.hard_settings_tasks import open_page, slide_to
from relay_desktop.sim.tasks.hard_shop_tasks import add_by_search, enter_shop, read_catalogue, search_for

KINDS = ("compare", "many_items", "long_list", "paraphrase", "multi_goal", "infeasible", "ask_user", "non_ascii")


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


async def tap_scrolled(driver: PhoneDriver, **query: str) -> None:
    node = await scroll_to(driver, **query)
    await driver.tap(*node.center)


async def buy(driver: PhoneDriver, *names: str) -> None:
    await enter_shop(driver)
    for name in names:
        await add_by_search(driver, name)
    await tap_on(driver, id="cart")
    await tap_on(driver, text="Checkout")


# ---------------------------------------------------------------- the suite's shape

def test_at_least_thirteen_hard_tasks_cover_every_kind() -> None:
    assert len(TASKS) >= 13 and all("hard" in t.tags and t.id.startswith("hard_") for t in TASKS)
    count = {kind: sum(kind in t.tags for t in TASKS) for kind in KINDS}
    assert count["compare"] >= 3 and count["many_items"] >= 2 and count["long_list"] >= 2, count
    assert count["paraphrase"] >= 2 and count["multi_goal"] >= 2 and count["infeasible"] >= 1, count
    assert count["ask_user"] >= 1 and count["non_ascii"] >= 1, count
    assert all(set(t.tags) <= {"hard", *KINDS} for t in TASKS)
    assert set(DOING_IT_ANYWAY) == {t.id for t in TASKS if t.expected_outcome == "failed"}
    assert not [t.id for t in TASKS if any(ord(c) > 127 for c in t.goal) and "non_ascii" not in t.tags]
    assert all(25 <= t.max_steps <= 30 for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_the_oracle_solves_it_in_process(phone: VirtualPhone, task: Task) -> None:
    task.setup(phone)
    assert task.check(phone).ok == (task.expected_outcome == "failed")
    await task.oracle(PhoneDriver(phone))
    assert task.check(phone).ok
    if task.id in DOING_IT_ANYWAY:
        await DOING_IT_ANYWAY[task.id](PhoneDriver(phone))
        assert not task.check(phone).ok


async def test_the_oracle_reads_the_whole_catalogue_with_its_deals(phone: VirtualPhone, driver: PhoneDriver) -> None:
    start(phone, "hard_shop_biggest_saving")
    await enter_shop(driver)
    listings = {p.name: p for p in await read_catalogue(driver)}
    assert len(listings) == len(shop_of(phone).products) == 25
    keyboard, candle = listings["Mechanical Keyboard"], listings["Scented Candle"]
    assert (keyboard.price_cents, keyboard.was_cents, keyboard.saving_cents) == (7999, 13999, 6000)
    assert (candle.saving_cents, listings["Noise-Cancelling Headphones"].saving_cents) == (1500, 5000)
    assert listings["Yoga Mat"].was_cents == 0


# ---------------------------------------------------------------- comparing

@pytest.mark.parametrize(("wrong", "why"), [
    ("Stainless Water Bottle", "Cast Iron Skillet"),          # 4.7 stars, on the first screen
    ("Noise-Cancelling Headphones", "Cast Iron Skillet"),     # 4.8 stars too, but $199.99
])
async def test_best_rated_under_40_rejects_the_tempting_ones(phone: VirtualPhone, driver: PhoneDriver, wrong: str,
                                                             why: str) -> None:
    task = start(phone, "hard_shop_best_rated_under_40")
    await enter_shop(driver)
    await add_by_search(driver, wrong)
    failing(task, phone, wrong, why)


async def test_the_right_product_twice_or_bought_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_shop_best_rated_under_40")
    await enter_shop(driver)
    await add_by_search(driver, "Cast Iron Skillet")
    assert task.check(phone).ok
    await tap_on(driver, desc="Add Cast Iron Skillet to cart")
    failing(task, phone, "2 × Cast Iron Skillet")
    await tap_on(driver, id="cart")
    await tap_on(driver, desc="Decrease quantity of Cast Iron Skillet")
    assert task.check(phone).ok
    await tap_on(driver, text="Checkout")
    failing(task, phone, "an order was placed")


@pytest.mark.parametrize("wrong", ["Scented Candle", "Noise-Cancelling Headphones"])
async def test_the_biggest_percentage_or_priciest_deal_is_not_the_biggest_saving(phone: VirtualPhone,
                                                                                 driver: PhoneDriver,
                                                                                 wrong: str) -> None:
    task = start(phone, "hard_shop_biggest_saving")
    await enter_shop(driver)
    await add_by_search(driver, wrong)        # 50% off ($15), or the most expensive deal ($50 off)
    failing(task, phone, wrong, "$60")


async def test_cheapest_top_rated_must_be_bought_alone(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_shop_buy_cheapest_top_rated")
    await enter_shop(driver)
    await add_by_search(driver, "Stainless Water Bottle")
    failing(task, phone, "0 orders were placed", "cart: 1 × Stainless Water Bottle")
    task = start(phone, "hard_shop_buy_cheapest_top_rated")
    await buy(driver, "Scented Candle")        # the cheapest of all, but 4.6 stars
    failing(task, phone, "holds 1 × Scented Candle")
    task = start(phone, "hard_shop_buy_cheapest_top_rated")
    await buy(driver, "Stainless Water Bottle", "Yoga Mat")
    failing(task, phone, "1 × Stainless Water Bottle, 1 × Yoga Mat")
    task = start(phone, "hard_shop_buy_cheapest_top_rated")
    await buy(driver, "Stainless Water Bottle")
    assert task.check(phone).ok
    await tap_on(driver, text="Continue shopping")
    await buy(driver, "Stainless Water Bottle")
    failing(task, phone, "2 orders were placed")


# ---------------------------------------------------------------- asking which

async def test_the_wall_clock_or_both_clocks_fail(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_shop_which_clock")
    assert task.must_ask and task.answers and "alarm clock" in task.answers[0].lower()
    await enter_shop(driver)
    assert sorted(await search_for(driver, "clocks")) == ["Alarm Clock", "Wall Clock"]
    await tap_on(driver, desc="Add Wall Clock to cart")
    failing(task, phone, "1 × Wall Clock", "alarm clock")
    await tap_on(driver, desc="Add Alarm Clock to cart")
    failing(task, phone, "1 × Wall Clock, 1 × Alarm Clock")


# ---------------------------------------------------------------- many items

async def test_emptying_the_cart_or_keeping_one_yoga_mat_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_shop_clear_cart_but_yoga")
    await enter_shop(driver)
    await tap_on(driver, id="cart")
    for name in ("Wireless Earbuds", "Instant Camera", "Ceramic Mug Set", "Desk Organizer"):
        await tap_on(driver, desc=f"Remove {name}")
    failing(task, phone, "1 × Sunglasses")                  # the last line, below the fold, was missed
    await tap_on(driver, desc="Remove Sunglasses")
    assert task.check(phone).ok
    await tap_on(driver, desc="Decrease quantity of Yoga Mat")
    failing(task, phone, "holds 1 × Yoga Mat; expected 2 × Yoga Mat")
    await tap_on(driver, desc="Remove Yoga Mat")
    failing(task, phone, "holds nothing")


async def test_the_party_order_needs_both_quantities_and_the_code(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_shop_party_order")
    await enter_shop(driver)
    await add_by_search(driver, "Ceramic Mug Set")
    await add_by_search(driver, "Scented Candle")
    await tap_on(driver, id="cart")
    await tap_on(driver, desc="Increase quantity of Ceramic Mug Set")
    await tap_on(driver, desc="Increase quantity of Scented Candle")
    await tap_on(driver, desc="Increase quantity of Scented Candle")
    await tap_on(driver, text="Checkout")                   # the welcome code forgotten
    failing(task, phone, "without a promo code")
    task = start(phone, "hard_shop_party_order")
    shop_of(phone).cart.update({14: 2, 15: 2})
    shop_of(phone).promo = "WELCOME10"
    shop_of(phone).checkout()
    failing(task, phone, "2 × Scented Candle")


async def test_weekday_alarms_off_rejects_partial_work_and_deletions(phone: VirtualPhone,
                                                                      driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_weekday_alarms_off")
    await open_alarms(driver)
    await tap_scrolled(driver, desc="Turn off 06:45 alarm")
    await tap_scrolled(driver, desc="Turn off 07:30 alarm")
    failing(task, phone, "08:00 Work [Mon, Tue, Wed, Thu, Fri] off")   # the work alarm, below the fold
    await tap_scrolled(driver, desc="Turn off 08:00 alarm")
    assert task.check(phone).ok
    await tap_scrolled(driver, desc="Turn off 08:30 alarm")
    failing(task, phone, "08:30 Yoga [Sat, Sun] on")
    task = start(phone, "hard_clock_weekday_alarms_off")
    await open_alarms(driver)
    for time in ("06:30", "06:45", "07:30", "08:00"):
        await tap_scrolled(driver, desc=f"Delete {time} alarm")   # gone is not off
    failing(task, phone, "missing or changed: 06:30 Gym")


async def test_two_of_three_wake_ups_or_the_gym_alarm_instead_fails(phone: VirtualPhone,
                                                                     driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_three_wake_ups")
    await open_alarms(driver)
    await add_alarm(driver, "05:40")
    await add_alarm(driver, "05:50")
    failing(task, phone, "expected 05:40, 05:50, 06:00")
    await tap_on(driver, desc="Turn on 06:30 alarm")          # the gym alarm switched on is not a 6:00 alarm
    failing(task, phone, "06:30 Gym")
    task = start(phone, "hard_clock_three_wake_ups")
    await open_alarms(driver)
    for time in ("05:40", "05:50", "06:00", "06:00"):
        await add_alarm(driver, time)
    failing(task, phone, "06:00")


async def test_three_cities_must_be_exactly_those(phone: VirtualPhone) -> None:
    task = start(phone, "hard_clock_three_world_cities")
    clock_of(phone).cities += ["Tokyo", "Wellington"]
    failing(task, phone, "expected São Paulo, Tokyo, Wellington")
    clock_of(phone).cities.append("Santiago")                # a neighbour in the list, not São Paulo
    failing(task, phone, "Santiago")
    clock_of(phone).cities[-1] = "São Paulo"
    assert task.check(phone).ok
    clock_of(phone).cities.append("Auckland")                # Wellington's time zone, but another city
    failing(task, phone, "Auckland")


# ---------------------------------------------------------------- long list, paraphrase

async def test_a_new_1715_alarm_or_the_wrong_one_moved_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_piano_quarter_past_five")
    await open_alarms(driver)
    await add_alarm(driver, "17:15")                          # added beside the lesson's alarm, not moved
    failing(task, phone, "unexpected: 17:15 (no label)", "18:00 Piano lesson")
    task = start(phone, "hard_clock_piano_quarter_past_five")
    await open_alarms(driver)
    await retime(driver, "16:20", "17:15")                    # Swim club, the card above
    failing(task, phone, "17:15 Swim club")
    task = start(phone, "hard_clock_piano_quarter_past_five")
    await open_alarms(driver)
    await retime(driver, "18:00", "05:15")                    # a quarter past five in the morning
    failing(task, phone, "05:15 Piano lesson")


async def test_half_an_hour_earlier_is_the_work_alarm_moved(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_work_half_hour_earlier")
    await open_alarms(driver)
    await add_alarm(driver, "07:30")                          # a one-time 07:30 and the work alarm off
    await tap_on(driver, desc="Turn off 08:00 alarm")
    failing(task, phone, "07:30 Work [Mon, Tue, Wed, Thu, Fri] on", "07:30 (no label) [once] on")
    task = start(phone, "hard_clock_work_half_hour_earlier")
    await open_alarms(driver)
    await retime(driver, "08:00", "07:00")
    failing(task, phone, "07:00 Work")


# ---------------------------------------------------------------- non-ASCII

@pytest.mark.parametrize("label", ["Fruhstuck ☕", "Frühstück", "Frühstück :coffee:"])
async def test_a_breakfast_label_almost_right_fails(phone: VirtualPhone, driver: PhoneDriver, label: str) -> None:
    task = start(phone, "hard_clock_breakfast_label")
    await open_alarms(driver)
    await add_alarm(driver, "06:15")
    await label_new_alarm(driver, label)
    failing(task, phone, "expected exactly 'Frühstück ☕'")


async def test_a_decomposed_umlaut_reads_the_same(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_breakfast_label")
    await open_alarms(driver)
    await add_alarm(driver, "06:15")
    await label_new_alarm(driver, unicodedata.normalize("NFD", "Frühstück ☕"))
    assert task.check(phone).ok
    await add_alarm(driver, "06:20")                           # a second new alarm is one too many
    failing(task, phone, "06:20")


# ---------------------------------------------------------------- several goals

async def test_the_roast_timer_and_guests_alarm_are_both_needed(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_clock_roast_timer_and_guests")
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Timer")
    for digit in "45":                                         # 45 seconds, not minutes
        await tap_on(driver, id=f"timer_setup_digit_{digit}")
    await tap_on(driver, desc="Start")
    await tap_on(driver, desc="Alarm")
    await add_alarm(driver, "19:00")
    await label_new_alarm(driver, "guests  arrive")            # case and spacing do not matter here
    detail = failing(task, phone, "timers are [(45, True)]")
    assert "19:00" not in detail
    task = start(phone, "hard_clock_roast_timer_and_guests")
    clock_of(phone).add(19, 0)
    failing(task, phone, "19:00 (no label)", "timers are none")


async def test_two_of_three_boarding_settings_fail(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = start(phone, "hard_settings_before_boarding")
    await open_page(driver, "Network & internet", "Airplane mode")
    await tap_on(driver, desc="Navigate up")
    await tap_on(driver, text="Display")
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="30 seconds")
    detail = failing(task, phone, "dark theme is '1'")
    assert "airplane" not in detail and "timeout" not in detail


async def test_reading_in_bed_needs_about_20_percent_and_ten_minutes(phone: VirtualPhone,
                                                                     driver: PhoneDriver) -> None:
    task = start(phone, "hard_settings_reading_in_bed")
    await open_page(driver, "Display")
    await tap_on(driver, text="Dark theme")                    # "dimmer" is not dark theme
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="10 minutes")
    failing(task, phone, "brightness is 230/255")
    await tap_on(driver, desc="Navigate up")
    await slide_to(driver, 0.0, desc="Brightness level")       # all the way down is not "around 20%"
    failing(task, phone, "not around 20%")
    await slide_to(driver, 0.22, desc="Brightness level")
    assert task.check(phone).ok


async def test_silence_that_mutes_the_alarm_fails_and_the_ringer_at_zero_passes(phone: VirtualPhone,
                                                                                 driver: PhoneDriver) -> None:
    task = start(phone, "hard_settings_silence_keep_alarm")
    await open_page(driver, "Sound & vibration")
    await slide_to(driver, 0.0, desc="Media volume")           # media is not the ringer
    failing(task, phone, "still rings")
    await slide_to(driver, 0.0, desc="Ring & notification volume")
    assert task.check(phone).ok                                # a silent ringer is silence too
    await slide_to(driver, 0.0, desc="Alarm volume")
    failing(task, phone, "alarm volume is 0")
    task = start(phone, "hard_settings_silence_keep_alarm")
    await open_page(driver, "Sound & vibration", "Do Not Disturb")
    await tap_on(driver, text="Turn on now")
    assert task.check(phone).ok
    await open_alarms(driver)
    await tap_on(driver, desc="Turn off 08:00 alarm")          # "so it won't ring": the alarm itself off
    failing(task, phone, "alarms changed")
