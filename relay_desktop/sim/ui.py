"""Widget kit for virtual-phone apps: Material 3 look, real Android class names and resource ids.

Every function returns a plain :class:`~relay_desktop.sim.views.View`; sizes are given in dp and turned
into pixels with the phone's density, so apps read like layout files and dump like real ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from relay_desktop.sim.views import Color, Style, View

PRIMARY: Color = (11, 87, 208)
ON_PRIMARY: Color = (255, 255, 255)
PRIMARY_CONTAINER: Color = (211, 227, 253)
SURFACE: Color = (250, 250, 253)
SURFACE_CONTAINER: Color = (240, 242, 247)
ON_SURFACE: Color = (27, 27, 31)
ON_SURFACE_VARIANT: Color = (68, 71, 78)
OUTLINE: Color = (116, 119, 127)
OUTLINE_VARIANT: Color = (196, 198, 208)
ERROR: Color = (179, 38, 30)

Action = Callable[[], None]


class Kit:
    """Widget constructors bound to one screen density (px per dp)."""

    def __init__(self, density_dpi: int = 420) -> None:
        self.scale = density_dpi / 160

    def dp(self, value: float) -> int:
        return round(value * self.scale)

    def sp(self, value: float) -> int:
        return round(value * self.scale)

    def pad(self, left: float, top: float | None = None, right: float | None = None,
            bottom: float | None = None) -> tuple[int, int, int, int]:
        top = left if top is None else top
        right = left if right is None else right
        bottom = top if bottom is None else bottom
        return self.dp(left), self.dp(top), self.dp(right), self.dp(bottom)

    # ------------------------------------------------------------ text and containers

    def text(self, value: str, *, size: float = 16, weight: int = 400, color: Color = ON_SURFACE,
             id: str = "", max_lines: int = 0, align: str = "left", padding: tuple[int, int, int, int] = (0, 0, 0, 0),
             on_click: Action | None = None) -> View:
        return View(cls="android.widget.TextView", id=id, text=value, padding=padding,
                    clickable=on_click is not None, focusable=on_click is not None, on_click=on_click,
                    style=Style(kind="text", fg=color, size=self.sp(size), weight=weight,
                                max_lines=max_lines, align=align))  # type: ignore[arg-type]

    def column(self, children: Sequence[View], *, gap: float = 0, padding: tuple[int, int, int, int] = (0, 0, 0, 0),
               id: str = "", weight: float = 0, bg: Color | None = None) -> View:
        return View(cls="android.widget.LinearLayout", id=id, children=list(children), gap=self.dp(gap),
                    padding=padding, weight=weight, style=Style(bg=bg))

    def row(self, children: Sequence[View], *, gap: float = 0, padding: tuple[int, int, int, int] = (0, 0, 0, 0),
            id: str = "", height: float | None = None, on_click: Action | None = None) -> View:
        return View(cls="android.widget.LinearLayout", id=id, orientation="h", children=list(children),
                    gap=self.dp(gap), padding=padding, height=None if height is None else self.dp(height),
                    clickable=on_click is not None, focusable=on_click is not None, on_click=on_click)

    def spacer(self, height: float = 0, weight: float = 0) -> View:
        return View(cls="android.view.View", height=self.dp(height) if not weight else None, weight=weight)

    def divider(self) -> View:
        return View(cls="android.view.View", height=max(1, self.dp(1) // 2),
                    style=Style(kind="divider", bg=OUTLINE_VARIANT))

    def scroll(self, children: Sequence[View], *, key: str, gap: float = 0, id: str = "",
               padding: tuple[int, int, int, int] = (0, 0, 0, 0),
               cls: str = "androidx.recyclerview.widget.RecyclerView") -> View:
        """A vertical scrolling list filling the remaining height; ``key`` keeps its offset across frames."""
        return View(cls=cls, id=id or key, key=key, children=list(children), scrollable=True, focusable=True,
                    weight=1, gap=self.dp(gap), padding=padding)

    def card(self, children: Sequence[View], *, on_click: Action | None = None, id: str = "", key: str = "",
             padding: float = 16, gap: float = 4, bg: Color = SURFACE_CONTAINER) -> View:
        return View(cls="androidx.cardview.widget.CardView", id=id, key=key, children=list(children),
                    padding=self.pad(padding), gap=self.dp(gap), clickable=on_click is not None,
                    focusable=on_click is not None, on_click=on_click,
                    style=Style(kind="card", bg=bg, radius=self.dp(16)))

    # ------------------------------------------------------------ controls

    def button(self, label: str, on_click: Action, *, id: str = "", variant: str = "filled",
               enabled: bool = True, width: float | None = None) -> View:
        kind = {"filled": "button", "outlined": "button", "text": "text_button"}[variant]
        filled = variant == "filled"
        return View(cls="android.widget.Button", id=id, text=label, clickable=True, focusable=True, enabled=enabled,
                    on_click=on_click if enabled else None, height=self.dp(48),
                    width=None if width is None else self.dp(width), padding=self.pad(24, 0),
                    style=Style(kind=kind, bg=PRIMARY if filled else None, fg=ON_PRIMARY if filled else PRIMARY,
                                border=OUTLINE if variant == "outlined" else None, size=self.sp(14), weight=500,
                                radius=self.dp(24), align="center"))

    def icon_button(self, icon: str, desc: str, on_click: Action, *, id: str = "",
                    color: Color = ON_SURFACE_VARIANT) -> View:
        return View(cls="android.widget.ImageButton", id=id, desc=desc, clickable=True, focusable=True,
                    on_click=on_click, width=self.dp(48), height=self.dp(48), align="center",
                    style=Style(kind="icon_button", icon=icon, fg=color, radius=self.dp(24)))

    def icon(self, icon: str, *, color: Color = ON_SURFACE_VARIANT, size: float = 24, desc: str = "") -> View:
        return View(cls="android.widget.ImageView", desc=desc, width=self.dp(size), height=self.dp(size),
                    align="center", style=Style(kind="icon", icon=icon, fg=color))

    def fab(self, icon: str, desc: str, on_click: Action, *, id: str = "fab") -> View:
        return View(cls="com.google.android.material.floatingactionbutton.FloatingActionButton", id=id, desc=desc,
                    clickable=True, focusable=True, on_click=on_click, width=self.dp(56), height=self.dp(56),
                    anchor="bottom_end", margin=self.dp(16),
                    style=Style(kind="fab", icon=icon, bg=PRIMARY_CONTAINER, fg=(4, 30, 73), radius=self.dp(16)))

    def switch(self, checked: bool, *, id: str = "switch_widget") -> View:
        # As in AOSP Settings, the row takes the click; the switch only shows (and reports) the state.
        return View(cls="android.widget.Switch", id=id, text="ON" if checked else "OFF", checkable=True,
                    checked=checked, width=self.dp(52), height=self.dp(32), align="center",
                    style=Style(kind="switch", accent=PRIMARY, size=1))

    def checkbox(self, checked: bool, *, id: str = "checkbox") -> View:
        return View(cls="android.widget.CheckBox", id=id, checkable=True, checked=checked,
                    width=self.dp(24), height=self.dp(24), align="center",
                    style=Style(kind="checkbox", accent=PRIMARY))

    def edit_text(self, key: str, value: str, *, hint: str, on_change: Callable[[str], None],
                  on_submit: Action | None = None, password: bool = False, multiline: bool = False,
                  id: str = "", variant: str = "outlined") -> View:
        """A text field; the phone marks it focused (and shows the keyboard) when tapped."""
        kind = "search" if variant == "search" else "edit"
        return View(cls="android.widget.EditText", id=id or key, key=key, text=value, hint=hint,
                    clickable=True, focusable=True, long_clickable=True, password=password,
                    on_text=on_change, on_submit=on_submit,
                    height=None if multiline else self.dp(56), padding=self.pad(16, 14),
                    style=Style(kind=kind, fg=ON_SURFACE, size=self.sp(16), accent=PRIMARY, border=OUTLINE,
                                radius=self.dp(28) if kind == "search" else self.dp(4),
                                bg=SURFACE_CONTAINER if kind == "search" else None))

    def seekbar(self, value: int, maximum: int, on_change: Callable[[int], None], *, id: str = "seekbar",
                desc: str = "") -> View:
        view = View(cls="android.widget.SeekBar", id=id, desc=desc, text=f"{value}", focusable=True,
                    clickable=True, height=self.dp(48), padding=self.pad(16, 0),
                    style=Style(kind="seekbar", accent=PRIMARY, size=1))

        def touched(x: int, _y: int) -> None:
            left, right = view.bounds.left + view.padding[0], view.bounds.right - view.padding[2]
            fraction = min(1.0, max(0.0, (x - left) / max(1, right - left)))
            on_change(round(fraction * maximum))

        view.on_touch = touched
        # The renderer reads the fill fraction from the text ("value") and this maximum via 'max_lines'.
        view.style.max_lines = maximum
        return view

    def chip(self, label: str, on_click: Action, *, selected: bool = False, id: str = "") -> View:
        return View(cls="com.google.android.material.chip.Chip", id=id, text=label, checkable=True,
                    checked=selected, clickable=True, focusable=True, on_click=on_click, height=self.dp(32),
                    padding=self.pad(16, 0),
                    style=Style(kind="chip", size=self.sp(14), weight=500, radius=self.dp(8), align="center",
                                bg=PRIMARY_CONTAINER if selected else None, border=OUTLINE))

    def avatar(self, name: str, *, color: Color = PRIMARY_CONTAINER, size: float = 40) -> View:
        initial = (name.strip()[:1] or "?").upper()
        return View(cls="android.widget.TextView", text=initial, width=self.dp(size), height=self.dp(size),
                    align="center", style=Style(kind="avatar", bg=color, fg=(4, 30, 73), size=self.sp(18),
                                                weight=500, align="center"))

    def image(self, desc: str, *, height: float, color: Color = PRIMARY_CONTAINER, icon: str = "") -> View:
        return View(cls="android.widget.ImageView", desc=desc, height=self.dp(height),
                    style=Style(kind="image", bg=color, icon=icon, radius=self.dp(12)))

    # ------------------------------------------------------------ composites

    def list_item(self, title: str, subtitle: str = "", *, on_click: Action | None = None,
                  on_long_click: Action | None = None, leading: View | None = None, trailing: View | None = None,
                  id: str = "", key: str = "", title_id: str = "title", subtitle_id: str = "summary",
                  selected: bool = False) -> View:
        texts = [self.text(title, size=16, id=title_id, max_lines=1)]
        if subtitle:
            texts.append(self.text(subtitle, size=14, color=ON_SURFACE_VARIANT, id=subtitle_id, max_lines=2))
        body = View(cls="android.widget.LinearLayout", children=texts, weight=1, justify="center")
        children = [c for c in (leading, body, trailing) if c is not None]
        return View(cls="android.widget.LinearLayout", id=id, key=key or id, orientation="h", children=children,
                    gap=self.dp(16), padding=self.pad(16, 12, 24, 12),
                    height=self.dp(72 if subtitle else 56), clickable=on_click is not None,
                    focusable=on_click is not None, long_clickable=on_long_click is not None,
                    on_click=on_click, on_long_click=on_long_click, selected=selected,
                    style=Style(kind="list_item", bg=PRIMARY_CONTAINER if selected else None))

    def switch_row(self, title: str, checked: bool, on_toggle: Action, *, subtitle: str = "", icon: str = "",
                   id: str = "") -> View:
        leading = self.icon(icon) if icon else None
        return self.list_item(title, subtitle, on_click=on_toggle, leading=leading, trailing=self.switch(checked),
                              id=id, key=id)

    def app_bar(self, title: str, *, up: Action | None = None, actions: Sequence[View] = (),
                id: str = "toolbar") -> View:
        children: list[View] = []
        if up is not None:
            children.append(self.icon_button("back", "Navigate up", up, id="up"))
        children.append(View(cls="android.widget.TextView", text=title, weight=1, align="center",
                             height=self.dp(36), id="title_text" if up else "app_title",
                             style=Style(kind="text", size=self.sp(22), fg=ON_SURFACE, max_lines=1)))
        children.extend(actions)
        return View(cls="android.view.ViewGroup", id=id, orientation="h", children=children, height=self.dp(64),
                    padding=self.pad(4 if up else 16, 8, 4, 8), gap=self.dp(4),
                    style=Style(kind="appbar", bg=SURFACE))

    def bottom_nav(self, items: Sequence[tuple[str, str, bool, Action]], *, id: str = "bottom_navigation") -> View:
        tabs = []
        for label, icon, selected, action in items:
            tabs.append(View(cls="android.widget.FrameLayout", desc=label, text="", weight=1, clickable=True,
                             focusable=True, selected=selected, on_click=action, id=f"tab_{label.lower()}",
                             orientation="v", padding=self.pad(0, 12, 0, 12), children=[
                                 self.icon(icon, color=ON_SURFACE if selected else ON_SURFACE_VARIANT),
                                 self.text(label, size=12, weight=600 if selected else 400, align="center"),
                             ], style=Style(kind="nav_tab", accent=PRIMARY_CONTAINER)))
        return View(cls="com.google.android.material.bottomnavigation.BottomNavigationView", id=id,
                    orientation="h", children=tabs, height=self.dp(80), style=Style(bg=SURFACE_CONTAINER))

    def screen(self, bar: View | None, body: View, *, bottom: View | None = None, fab: View | None = None,
               id: str = "") -> View:
        """A full activity: app bar, a body filling the rest, an optional bottom bar and FAB.

        The FAB floats over the body only, so it never covers a bottom navigation bar.
        """
        if body.weight == 0 and body.height is None:
            body.weight = 1
        middle = body
        if fab is not None:
            middle = View(cls="android.widget.FrameLayout", orientation="stack", weight=1,
                          children=[body, fab])
        main = View(cls="android.widget.LinearLayout", id=id,
                    children=[c for c in (bar, middle, bottom) if c is not None])
        return View(cls="android.widget.FrameLayout", children=[main], orientation="stack",
                    style=Style(bg=SURFACE))

    def dialog(self, title: str, message: str, buttons: Sequence[tuple[str, Action]], *,
               body: Sequence[View] = ()) -> View:
        """An AlertDialog window root (the phone centres it and dims what lies beneath).

        ``buttons`` are in on-screen order, left to right, positive last; ids follow Android:
        the rightmost is ``android:id/button1`` (positive), then ``button2`` (negative), ``button3``.
        """
        count = len(buttons)
        row = View(cls="android.widget.LinearLayout", id="buttonPanel", orientation="h", gap=self.dp(8),
                   children=[self.spacer(weight=1)] + [
                       self.button(label, action, id=f"android:id/button{count - i}", variant="text")
                       for i, (label, action) in enumerate(buttons)])
        content: list[View] = [self.text(title, size=24, id="android:id/alertTitle")]
        if message:
            content.append(self.text(message, size=14, color=ON_SURFACE_VARIANT, id="android:id/message"))
        content.extend(body)
        content.append(row)
        return View(cls="android.widget.FrameLayout", id="android:id/content", anchor="center",
                    width=self.dp(312), margin=0, children=[
                        View(cls="android.widget.LinearLayout", id="parentPanel", children=content,
                             padding=self.pad(24, 24, 24, 18), gap=self.dp(16),
                             style=Style(kind="card", bg=SURFACE_CONTAINER, radius=self.dp(28)))])
