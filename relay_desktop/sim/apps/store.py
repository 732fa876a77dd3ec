"""Shop: a third-party store app with a launch promo, a long product list, search, a cart and checkout.

What makes it a useful test bed is what real store apps do to an agent: a modal promo pop-up on every
fresh launch that swallows taps and BACK until a button is pressed, a catalogue far longer than the
screen (products below the fold are not in the dump until scrolled to), deals shown as a "was" price and
a percentage badge (so "the biggest saving" takes arithmetic), and a cart with quantity steppers. State
lives on the app (:attr:`Shop.cart`, :attr:`Shop.orders`) so task checkers read it, not the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.store_search import SEARCH, matches, search_page
from relay_desktop.sim.ui import ERROR, ON_SURFACE_VARIANT, OUTLINE_VARIANT, SURFACE
from relay_desktop.sim.views import Color, Style, View

PACKAGE = "com.relay.shop"
MAIN = ".MainActivity"
CART = ".CartActivity"
CONFIRMATION = ".OrderConfirmationActivity"
PROMO = ".PromoCodeActivity"
PROMO_CODES = {"WELCOME10": 10}      # code -> percent off; WELCOME10 is the one the launch promo shows
MAX_QUANTITY = 10                     # a cart line's stepper stops here

CORAL: Color = (244, 81, 30)          # brand colour: buttons, badge, launcher icon
CORAL_CONTAINER: Color = (255, 224, 212)
ON_CORAL_CONTAINER: Color = (92, 26, 0)
STAR: Color = (230, 145, 0)
CARD_BG: Color = (255, 255, 255)
PAGE_BG: Color = (247, 244, 242)      # warm grey behind white cards, as store apps do
CARD_BORDER: Color = (232, 226, 222)

# (name, price in cents, rating, placeholder glyph). Fixed so tasks can name "product 20" in advance.
CATALOGUE: tuple[tuple[str, int, float, str], ...] = (
    ("Wireless Earbuds", 4999, 4.5, "music"), ("Stainless Water Bottle", 2499, 4.7, "image"),
    ("Yoga Mat", 2999, 4.6, "favorite"), ("Smart Watch", 12999, 4.3, "clock"),
    ("Bluetooth Speaker", 3999, 4.4, "bluetooth"), ("LED Desk Lamp", 3499, 4.5, "brightness"),
    ("Instant Camera", 6999, 4.2, "camera"), ("Phone Case", 1599, 4.1, "phone"),
    ("Portable Charger", 2999, 4.6, "battery"), ("Coffee Grinder", 4499, 4.4, "settings"),
    ("Running Shoes", 8999, 4.5, "location"), ("Travel Backpack", 5999, 4.7, "globe"),
    ("Noise-Cancelling Headphones", 19999, 4.8, "music"), ("Ceramic Mug Set", 2799, 4.3, "house"),
    ("Scented Candle", 1499, 4.6, "brightness"), ("Wall Clock", 3299, 4.2, "clock"),
    ("Desk Organizer", 1999, 4.4, "note"), ("Wireless Mouse", 2499, 4.5, "play"),
    ("Mechanical Keyboard", 7999, 4.7, "edit"), ("Fitness Tracker", 5499, 4.3, "favorite"),
    ("Cast Iron Skillet", 3999, 4.8, "house"), ("Throw Blanket", 3499, 4.6, "image"),
    ("Sunglasses", 2199, 4.1, "visibility"), ("Plant Pot Set", 2599, 4.4, "image"),
    ("Alarm Clock", 1899, 4.0, "alarm"),
)
# Deals: product id -> list ("was") price in cents. The biggest percentage off (the candle) is not the
# biggest saving in dollars (the keyboard), as on any real deals page.
LIST_PRICES: dict[int, int] = {4: 15999, 10: 5999, 11: 11999, 13: 24999, 15: 2999, 19: 13999, 22: 4999}
# Pastel photo placeholders, cycled through the catalogue.
SWATCHES: tuple[Color, ...] = ((255, 224, 212), (214, 232, 255), (220, 242, 222), (255, 240, 200),
                               (236, 224, 250), (208, 240, 240))


@dataclass(frozen=True)
class Product:
    id: int
    name: str
    price_cents: int
    rating: float
    glyph: str = "image"
    list_price_cents: int = 0      # the "was" price of a product on sale; 0 when it is not

    @property
    def on_sale(self) -> bool:
        return self.list_price_cents > self.price_cents

    @property
    def percent_off(self) -> int:
        return round(100 * (self.list_price_cents - self.price_cents) / self.list_price_cents) if self.on_sale else 0


@dataclass(frozen=True)
class Order:
    number: str
    items: dict[int, int]          # product id -> quantity
    total_cents: int
    promo: str = ""                # the promo code applied, if any


def money(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def reviews_for(product: Product) -> int:
    """A believable, fixed review count (no randomness: screenshots and dumps must be reproducible)."""
    return 137 + (product.id * 7919) % 4200


def items_label(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


class Shop(App):
    package = PACKAGE
    label = "Shop"
    icon = "shop"
    color = CORAL
    main_activity = MAIN
    system = False
    version_name = "5.12.0"
    version_code = 51200
    screens = {MAIN: "catalogue", CART: "cart_screen", CONFIRMATION: "confirmation", PROMO: "promo_screen",
               SEARCH: "search_screen"}
    dialogs = {"promo": "promo_dialog"}

    def reset(self) -> None:
        self.products: list[Product] = [Product(i + 1, *row, LIST_PRICES.get(i + 1, 0))
                                        for i, row in enumerate(CATALOGUE)]
        self.cart: dict[int, int] = {}
        self.orders: list[Order] = []
        self.promo = ""                # the code applied to the cart

    # ------------------------------------------------------------ data

    def get(self, product_id: int) -> Product:
        return next(p for p in self.products if p.id == product_id)

    def cart_count(self) -> int:
        return sum(self.cart.values())

    def cart_subtotal(self) -> int:
        return sum(self.get(pid).price_cents * qty for pid, qty in self.cart.items())

    def discount(self) -> int:
        return self.cart_subtotal() * PROMO_CODES.get(self.promo, 0) // 100

    def cart_total(self) -> int:
        return self.cart_subtotal() - self.discount()

    def add_to_cart(self, product: Product) -> None:
        self.cart[product.id] = self.cart.get(product.id, 0) + 1
        self.toast(f"Added {product.name} to cart")

    def remove(self, product_id: int) -> None:
        self.cart.pop(product_id, None)
        self.phone.invalidate()

    def set_quantity(self, product_id: int, quantity: int) -> None:
        """The cart's − / + stepper: between 1 and 10 (Remove takes a line out), as store carts cap it."""
        if product_id in self.cart:
            self.cart[product_id] = max(1, min(MAX_QUANTITY, quantity))
            self.phone.invalidate()

    def search(self, query: str) -> list[Product]:
        return [p for p in self.products if matches(p.name, query)]

    def checkout(self) -> None:
        if not self.cart:
            return
        order = Order(f"SH-{10421 + len(self.orders)}", dict(self.cart), self.cart_total(), self.promo)
        self.orders.append(order)
        self.cart, self.promo = {}, ""
        # The cart screen gives way to the confirmation, so BACK from there returns to the catalogue.
        self.finish()
        self.open(CONFIRMATION, order=order.number)

    # ------------------------------------------------------------ widgets

    def _button(self, label: str, on_click: Callable[[], None], *, id: str, desc: str = "", key: str = "",
                variant: str = "filled") -> View:
        ui = self.ui
        view = ui.button(label, on_click, id=id, variant=variant)
        view.desc, view.key = desc, key
        view.style.bg = CORAL if variant == "filled" else None
        view.style.fg = (255, 255, 255) if variant == "filled" else CORAL
        return view

    def _photo(self, product: Product, size: float) -> View:
        ui = self.ui
        swatch = SWATCHES[(product.id - 1) % len(SWATCHES)]
        view = ui.image(f"Photo of {product.name}", height=size, color=swatch, icon=product.glyph)
        view.width, view.align = ui.dp(size), "center"
        return view

    def cart_button(self) -> View:
        """The app bar's cart icon with a count badge; the badge does not take touches, the icon does."""
        ui = self.ui
        count = self.cart_count()
        button = ui.icon_button("cart", f"Cart, {items_label(count)}", lambda: self.open(CART), id="cart",
                                color=(60, 60, 60))
        children = [button]
        if count:
            children.append(View(cls="android.widget.TextView", id="cart_badge", text=str(count), width=ui.dp(18),
                                 height=ui.dp(18), anchor="top_end", margin=ui.dp(6),
                                 style=Style(kind="avatar", bg=CORAL, fg=(255, 255, 255), size=ui.sp(11),
                                             weight=700, align="center")))
        return View(cls="android.widget.FrameLayout", orientation="stack", width=ui.dp(48), height=ui.dp(48),
                    align="center", children=children)

    def _bar(self, title: str, *, up: bool, actions: list[View]) -> View:
        bar = self.ui.app_bar(title, up=self.finish if up else None, actions=actions)
        bar.style.bg = SURFACE
        if not up:
            bar.children[0].style.weight = 700
            bar.children[0].style.fg = CORAL
        return bar

    # ------------------------------------------------------------ catalogue

    def catalogue(self, activity: Activity) -> View:
        ui = self.ui
        if not activity.state.get("promo_shown"):
            # As in onCreate of a real store app: the promo shows once per launch, before anything else.
            activity.state["promo_shown"] = True
            activity.state["dialog_modal"] = True
            activity.dialog = "promo"
        header = ui.text("Popular right now", size=18, weight=600, id="section_title", padding=ui.pad(4, 16, 4, 0))
        # Vertical breathing room is a spacer, not padding: padding would clip cards short of the nav bar
        # (RecyclerView's clipToPadding="false" look).
        rows = [header, *(self.product_card(p) for p in self.products), ui.spacer(12)]
        body = ui.scroll(rows, key="product_list", gap=12, padding=ui.pad(16, 0, 16, 0))
        body.style.bg = PAGE_BG
        root = ui.screen(self._bar("Shop", up=False, actions=[self._search_button(), self.cart_button()]), body,
                         id="shop_main")
        return root

    def _search_button(self) -> View:
        return self.ui.icon_button("search", "Search", lambda: self.open(SEARCH, focus="search_query"),
                                   id="action_search", color=(60, 60, 60))

    def product_card(self, product: Product) -> View:
        ui = self.ui
        name = ui.text(product.name, size=16, weight=500, id="product_name", max_lines=2)
        # Roboto has no ★ glyph, so the star is an icon and the text the bare score (as Play Store dumps it).
        score = ui.text(f"{product.rating:.1f}", size=14, weight=500, color=ON_SURFACE_VARIANT, id="product_rating")
        reviews = ui.text(f"({reviews_for(product):,})", size=14, color=ON_SURFACE_VARIANT)
        rating = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(4), id="rating_bar",
                      desc=f"Rated {product.rating:.1f} out of 5",
                      children=[ui.icon("star", color=STAR, size=16), score, reviews])
        price = ui.text(money(product.price_cents), size=18, weight=700, id="product_price")
        price.weight = 1
        add = self._button("Add to cart", lambda: self.add_to_cart(product), id="add_to_cart",
                           desc=f"Add {product.name} to cart", key=f"add:{product.id}")
        add.height, add.padding, add.align = ui.dp(40), ui.pad(16, 0), "center"
        buy_row = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(8), height=ui.dp(40),
                       children=[price, add])
        price.align = "center"
        lines = [name, rating, buy_row]
        if product.on_sale:
            # After the price, as shops show the old price beside the new one: a model reads the price first.
            lines.append(self._deal_row(product))
        details = View(cls="android.widget.LinearLayout", weight=1, gap=ui.dp(4), children=lines)
        card = View(cls="androidx.cardview.widget.CardView", id="product", key=f"product:{product.id}",
                    orientation="h", gap=ui.dp(12), padding=ui.pad(12), children=[self._photo(product, 96), details],
                    style=Style(kind="card", bg=CARD_BG, radius=ui.dp(16), border=CARD_BORDER))
        return card

    def _deal_row(self, product: Product) -> View:
        """A coral "-43%" badge and the list price, as deals show on store cards (the dump has no strike-through,
        so the old price says "Was")."""
        ui = self.ui
        badge = View(cls="android.widget.TextView", id="discount_badge", text=f"{product.percent_off}% off",
                     padding=ui.pad(8, 2), style=Style(kind="avatar", bg=CORAL, fg=(255, 255, 255), size=ui.sp(12),
                                                      weight=700, radius=ui.dp(6), align="center"))
        badge.width, badge.height = ui.dp(72), ui.dp(22)
        was = ui.text(f"Was {money(product.list_price_cents)}", size=14, color=ON_SURFACE_VARIANT,
                      id="product_list_price")
        return View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(8), id="deal",
                    desc=f"Deal: {product.percent_off}% off, was {money(product.list_price_cents)}",
                    children=[badge, was])

    def search_screen(self, activity: Activity) -> View:
        return search_page(self, activity, accent=CORAL, background=PAGE_BG)

    # ------------------------------------------------------------ the launch promo

    def promo_dialog(self, activity: Activity) -> View:
        ui = self.ui
        banner = View(cls="android.widget.LinearLayout", id="promo_banner", desc="Promotion", gap=ui.dp(4),
                      padding=ui.pad(16, 20), style=Style(kind="card", bg=CORAL_CONTAINER, radius=ui.dp(16)),
                      children=[ui.icon("shop", color=CORAL, size=40),
                                ui.text("10% OFF", size=28, weight=700, color=CORAL, align="center",
                                        id="promo_headline")])
        code = ui.text("Use code WELCOME10 at checkout", size=14, weight=500, color=ON_CORAL_CONTAINER,
                       id="promo_code")
        view = ui.dialog("Welcome!", "Get 10% off your first order", [
            ("No thanks", lambda: self._close_promo(activity)),
            ("Shop now", lambda: self._close_promo(activity)),
        ], body=[code])
        panel = view.children[0]
        panel.children.insert(0, banner)
        panel.style.bg = (255, 248, 245)
        for child in view.walk():
            if child.cls == "android.widget.Button":
                child.style.fg = CORAL
            if child.id == "android:id/button1":  # store promos push the positive action: a filled button
                child.style.kind, child.style.bg, child.style.fg = "button", CORAL, (255, 255, 255)
        return view

    def _close_promo(self, activity: Activity) -> None:
        activity.state["dialog_modal"] = False
        self.dismiss_dialog(activity)

    # ------------------------------------------------------------ cart

    def cart_screen(self, activity: Activity) -> View:
        ui = self.ui
        bar = self._bar("Cart", up=True, actions=[])
        if not self.cart:
            empty = ui.column([
                ui.icon("cart", size=64, color=OUTLINE_VARIANT),
                ui.text("Your cart is empty", size=18, weight=500, align="center", id="empty_cart"),
                ui.text("Items you add will show up here", size=14, color=ON_SURFACE_VARIANT, align="center"),
            ], gap=12, padding=ui.pad(24, 120, 24, 0))
            return ui.screen(bar, empty, id="cart_view")
        lines = [self._cart_line(self.get(pid), qty) for pid, qty in self.cart.items()]
        body = ui.scroll(lines, key="cart_list", gap=12, padding=ui.pad(16, 8, 16, 16))
        body.style.bg = PAGE_BG
        total_label = ui.text(f"Total ({items_label(self.cart_count())})", size=16, color=ON_SURFACE_VARIANT)
        total_label.weight = 1
        total = ui.text(money(self.cart_total()), size=22, weight=700, id="total")
        checkout = self._button("Checkout", self.checkout, id="checkout")
        total_row = View(cls="android.widget.LinearLayout", orientation="h", children=[total_label, total])
        summary = View(cls="android.widget.LinearLayout", id="summary", gap=ui.dp(12), padding=ui.pad(16),
                       children=[self._promo_row(), total_row, checkout], style=Style(bg=SURFACE))
        root = ui.screen(bar, body, bottom=ui.column([ui.divider(), summary]), id="cart_view")
        return root

    def _cart_line(self, product: Product, qty: int) -> View:
        ui = self.ui
        name = ui.text(product.name, size=16, weight=500, id="item_name", max_lines=2)
        detail = ui.text(f"Qty {qty} · {money(product.price_cents)} each", size=14, color=ON_SURFACE_VARIANT,
                         id="item_quantity")
        line_price = ui.text(money(product.price_cents * qty), size=16, weight=700, id="item_price")
        line_price.weight, line_price.align = 1, "center"
        remove = self._button("Remove", lambda: self.remove(product.id), id="remove", variant="text",
                              desc=f"Remove {product.name}", key=f"remove:{product.id}")
        remove.height, remove.padding, remove.align = ui.dp(40), ui.pad(12, 0), "center"
        actions = View(cls="android.widget.LinearLayout", orientation="h", height=ui.dp(40), gap=ui.dp(4),
                       children=[line_price, *self._stepper(product, qty), remove])
        details = View(cls="android.widget.LinearLayout", weight=1, gap=ui.dp(4), children=[name, detail, actions])
        return View(cls="androidx.cardview.widget.CardView", id="cart_item", key=f"item:{product.id}",
                    orientation="h", gap=ui.dp(12), padding=ui.pad(12), children=[self._photo(product, 72), details],
                    style=Style(kind="card", bg=CARD_BG, radius=ui.dp(16), border=CARD_BORDER))

    def _stepper(self, product: Product, qty: int) -> list[View]:
        """− and + round buttons; − is disabled at 1 and + at the cap, as store carts do."""
        ui = self.ui

        def step(label: str, verb: str, to: int, enabled: bool) -> View:
            return View(cls="android.widget.Button", id=f"quantity_{verb}", text=label,
                        desc=f"{verb.capitalize()} quantity of {product.name}", key=f"{verb}:{product.id}",
                        clickable=enabled, focusable=True, enabled=enabled,
                        on_click=lambda: self.set_quantity(product.id, to), width=ui.dp(40), height=ui.dp(40),
                        align="center", style=Style(kind="avatar", bg=CORAL_CONTAINER if enabled else PAGE_BG,
                                                    fg=ON_CORAL_CONTAINER if enabled else OUTLINE_VARIANT,
                                                    size=ui.sp(20), weight=700, radius=ui.dp(20), align="center"))

        return [step("−", "decrease", qty - 1, qty > 1), step("+", "increase", qty + 1, qty < MAX_QUANTITY)]

    def _promo_row(self) -> View:
        ui = self.ui
        if not self.promo:
            link = ui.text("Add promo code", size=16, weight=500, color=CORAL, id="add_promo_code",
                           on_click=lambda: self.open(PROMO, focus="promo_code_input"))
            link.height = ui.dp(40)
            return link
        label = ui.text(f"Promo {self.promo} ({PROMO_CODES[self.promo]}% off)", size=16, color=ON_SURFACE_VARIANT,
                        id="promo_applied")
        label.weight = 1
        return View(cls="android.widget.LinearLayout", orientation="h", children=[
            label, ui.text(f"-{money(self.discount())}", size=16, weight=500, color=CORAL, id="discount")])

    # ------------------------------------------------------------ promo code

    def promo_screen(self, activity: Activity) -> View:
        """The code field at the top, Apply pinned to the bottom, and (like many store apps) no resize for
        the keyboard: while it is up it hides Apply, so BACK must put it away first."""
        ui = self.ui
        field = ui.edit_text("promo_code_input", activity.state.get("code", ""), hint="Promo code",
                             on_change=self.field_setter(activity, "code"), on_submit=lambda: None)
        field.style.accent = CORAL  # no submit action: the IME's Done key only puts the keyboard away
        content: list[View] = [
            ui.text("Enter a promo code to get a discount on this order.", size=14, color=ON_SURFACE_VARIANT),
            field]
        if activity.state.get("error"):
            content.append(ui.text(activity.state["error"], size=14, color=ERROR, id="promo_error"))
        body = ui.column(content, gap=16, padding=ui.pad(16, 16), weight=1)
        apply = self._button("Apply", lambda: self._apply_promo(activity), id="apply_promo")
        bottom = View(cls="android.widget.LinearLayout", children=[apply], padding=ui.pad(16, 12, 16, 24))
        return ui.screen(self._bar("Promo code", up=True, actions=[]), body, bottom=bottom, id="promo_view")

    def _apply_promo(self, activity: Activity) -> None:
        code = "".join(str(activity.state.get("code", "")).split()).upper()
        if code not in PROMO_CODES:
            activity.state["error"] = "This code isn't valid" if code else "Enter a code"
            self.phone.invalidate()
            return
        self.promo = code
        self.finish()
        self.toast("Promo code applied")

    # ------------------------------------------------------------ order confirmation

    def confirmation(self, activity: Activity) -> View:
        ui = self.ui
        number = activity.params.get("order", "")
        order = next((o for o in self.orders if o.number == number), None)
        tick = View(cls="android.widget.ImageView", desc="Success", width=ui.dp(96), height=ui.dp(96),
                    align="center", style=Style(kind="icon_button", icon="check", bg=CORAL_CONTAINER,
                                                fg=CORAL, radius=ui.dp(48)))
        content: list[View] = [
            tick,
            ui.text("Order placed", size=28, weight=600, align="center", id="order_status"),
            ui.text(f"Order #{number}", size=16, color=ON_SURFACE_VARIANT, align="center", id="order_number"),
        ]
        if order is not None:
            summary = ", ".join(f"{qty} × {self.get(pid).name}" for pid, qty in order.items.items())
            content += [ui.text(summary, size=14, align="center", id="order_items"),
                        ui.text(f"Total paid {money(order.total_cents)}", size=16, weight=500, align="center",
                                id="order_total")]
        done = self._button("Continue shopping", self.finish, id="continue_shopping")
        done.width, done.align = ui.dp(240), "center"
        content.append(done)
        body = ui.column(content, gap=16, padding=ui.pad(24, 96, 24, 24))
        return ui.screen(self._bar("Order confirmed", up=True, actions=[]), body, id="confirmation_view")
