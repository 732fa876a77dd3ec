"""View trees of the virtual phone: one tree drives the screenshot, the hierarchy dump and hit-testing.

Apps rebuild their tree from state on every frame (like a declarative UI toolkit); the phone lays it out
with :func:`layout` and keeps nothing else, so the picture, the XML and the touch targets cannot disagree.

Sizes are in device pixels. Layout rules, deliberately few:

* ``orientation="v"``: children stacked top to bottom. A child's height is its ``height`` or its content's;
  children with ``weight`` share whatever height is left. Widths fill the parent (minus padding) unless a
  child sets ``width`` (then ``align`` places it).
* ``orientation="h"``: children side by side; fixed ``width`` first, ``weight`` children share the rest,
  others take their content width. Heights fill the row unless set.
* ``orientation="stack"``: children drawn over each other, each placed by its ``anchor``.
* ``scrollable=True`` on a ``"v"``/``"h"`` view: content may exceed the view; ``scroll`` shifts it, and the
  view clips what is outside (what the user cannot see is left out of the dump, as on a real phone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from relay_desktop.sim import fonts


class Rect(NamedTuple):
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def empty(self) -> bool:
        return self.right <= self.left or self.bottom <= self.top

    @property
    def center(self) -> tuple[int, int]:
        return (self.left + self.right) // 2, (self.top + self.bottom) // 2

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersect(self, other: Rect) -> Rect:
        r = Rect(max(self.left, other.left), max(self.top, other.top),
                 min(self.right, other.right), min(self.bottom, other.bottom))
        return r if not r.empty else Rect(0, 0, 0, 0)

    def inset(self, left: int, top: int, right: int, bottom: int) -> Rect:
        return Rect(self.left + left, self.top + top, self.right - right, self.bottom - bottom)

    def uiautomator(self) -> str:
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"


EMPTY = Rect(0, 0, 0, 0)

Color = tuple[int, int, int] | tuple[int, int, int, int]


@dataclass
class Style:
    """How the renderer draws a view. ``kind`` picks the drawing routine; the rest tunes it.

    Kinds: ``plain`` (background only), ``text``, ``button``, ``text_button``, ``icon_button``, ``fab``,
    ``edit`` (text field), ``switch``, ``checkbox``, ``card``, ``appbar``, ``list_item``, ``chip``,
    ``divider``, ``icon`` (a glyph from ``icon``), ``avatar`` (circle with initials), ``app_icon``
    (launcher icon), ``image`` (placeholder picture), ``key`` (keyboard key), ``scrim`` (dim layer).
    """

    kind: str = "plain"
    bg: Color | None = None
    fg: Color = (28, 27, 31)
    size: int = 42              # font size in px (16 sp at 420 dpi ≈ 42 px)
    weight: int = 400
    radius: int = 0
    align: Literal["left", "center", "right"] = "left"
    icon: str = ""              # glyph name for icon kinds (see render.py)
    border: Color | None = None
    max_lines: int = 0          # 0 = unlimited
    accent: Color | None = None  # switch/checkbox "on" colour, focus ring, etc.


@dataclass(eq=False)
class View:
    cls: str = "android.view.View"
    id: str = ""                # resource id suffix; dumped as "<package>:id/<id>"
    text: str = ""
    desc: str = ""              # content-desc
    hint: str = ""
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    enabled: bool = True
    selected: bool = False
    password: bool = False
    children: list[View] = field(default_factory=list)

    orientation: Literal["v", "h", "stack"] = "v"
    width: int | None = None
    height: int | None = None
    weight: float = 0.0
    padding: tuple[int, int, int, int] = (0, 0, 0, 0)   # left, top, right, bottom
    gap: int = 0
    align: Literal["start", "center", "end"] = "start"   # cross-axis placement when width/height is set
    anchor: Literal["fill", "top", "center", "bottom", "bottom_end", "top_end"] = "fill"  # in a stack
    margin: int = 0             # distance from the parent's edge for anchored stack children
    scroll: int = 0             # content offset of a scrollable view (px)
    # android:clipToPadding: a list that pads its end to stay clear of a floating button turns it off, so its
    # rows show (and are dumped) under that padding down to the list's own edge.
    clip_to_padding: bool = True
    justify: Literal["start", "center"] = "start"   # main-axis placement of content smaller than the view

    style: Style = field(default_factory=Style)
    on_click: Callable[[], None] | None = None
    on_long_click: Callable[[], None] | None = None
    on_touch: Callable[[int, int], None] | None = None   # tap with position (sliders, keyboard rows)
    on_text: Callable[[str], None] | None = None         # EditText: the new full text
    on_submit: Callable[[], None] | None = None          # EditText: IME action / ENTER
    key: str = ""               # identity across rebuilds (focus, scroll); defaults to id
    selection: tuple[int, int] | None = None   # focused EditText: selected offsets (start, end); equal = the cursor
    select_all_on_focus: bool = False           # EditText: android:selectAllOnFocus (Chrome's omnibox)

    # Filled in by layout():
    bounds: Rect = EMPTY        # full rectangle
    visible: Rect = EMPTY       # part not clipped by scrolling ancestors or the window
    content_extent: int = 0     # scrollable views: total content length along the scroll axis

    @property
    def identity(self) -> str:
        return self.key or self.id

    @property
    def editable(self) -> bool:
        return self.cls == "android.widget.EditText"

    def walk(self) -> Iterator[View]:
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, identity: str) -> View | None:
        return next((v for v in self.walk() if v.identity == identity), None)


# ---------------------------------------------------------------- measuring

def _text_lines(view: View, inner_width: int) -> list[str]:
    text = view.text or view.hint
    if not text:
        return []
    return fonts.wrap(text, view.style.size, inner_width, view.style.weight, view.style.max_lines)


def _content_width(view: View) -> int:
    """Natural width of a view that does not fill its parent (row children, fixed chips...)."""
    if view.width is not None:
        return view.width
    pl, _, pr, _ = view.padding
    if not view.children:
        text = view.text or view.hint
        return pl + pr + (fonts.text_width(text, view.style.size, view.style.weight) if text else 0)
    widths = [_content_width(c) for c in view.children]
    if view.orientation == "h":
        return pl + pr + sum(widths) + view.gap * (len(widths) - 1)
    return pl + pr + max(widths)


def measure_height(view: View, width: int) -> int:
    """Height the view wants at ``width`` (weights count as zero; scroll content is not capped here)."""
    if view.height is not None:
        return view.height
    pl, pt, pr, pb = view.padding
    inner = max(0, width - pl - pr)
    if not view.children:
        lines = _text_lines(view, inner)
        return pt + pb + len(lines) * fonts.line_height(view.style.size)
    if view.orientation == "v":
        kids = [measure_height(c, c.width or inner) for c in view.children]
        return pt + pb + sum(kids) + view.gap * (len(kids) - 1)
    if view.orientation == "h":
        widths = _row_widths(view, inner)
        return pt + pb + max(measure_height(c, w) for c, w in zip(view.children, widths, strict=True))
    return pt + pb + max(measure_height(c, c.width or inner) for c in view.children)


def _row_widths(view: View, inner: int) -> list[int]:
    kids = view.children
    fixed = [c.width if c.width is not None else (None if c.weight else _content_width(c)) for c in kids]
    used = sum(w for w in fixed if w is not None) + view.gap * (len(kids) - 1)
    total_weight = sum(c.weight for c, w in zip(kids, fixed, strict=True) if w is None) or 1.0
    free = max(0, inner - used)
    return [w if w is not None else int(free * c.weight / total_weight) for c, w in zip(kids, fixed, strict=True)]


# ---------------------------------------------------------------- placing

def layout(root: View, area: Rect) -> View:
    """Give every view in ``root`` its bounds inside ``area``; returns ``root`` for chaining."""
    _place(root, area, area)
    return root


def _place(view: View, rect: Rect, clip: Rect) -> None:
    view.bounds = rect
    view.visible = rect.intersect(clip)
    if not view.children:
        return
    pl, pt, pr, pb = view.padding
    inner = rect.inset(pl, pt, pr, pb)
    # A scrolling view hides content that has scrolled under its padding too, unless clipToPadding is off.
    child_clip = view.visible.intersect(inner) if view.scrollable and view.clip_to_padding else view.visible
    if view.orientation == "stack":
        for child in view.children:
            _place(child, _anchored(child, inner), child_clip)
        return
    if view.orientation == "v":
        _place_column(view, inner, child_clip)
    else:
        _place_row(view, inner, child_clip)


def _anchored(child: View, inner: Rect) -> Rect:
    if child.anchor == "fill" and child.width is None and child.height is None:
        return inner
    w = child.width if child.width is not None else inner.width - 2 * child.margin
    h = child.height if child.height is not None else measure_height(child, w)
    m = child.margin
    cx = inner.left + (inner.width - w) // 2
    positions = {
        "fill": (cx, inner.top + (inner.height - h) // 2),
        "center": (cx, inner.top + (inner.height - h) // 2),
        "top": (cx, inner.top + m),
        "bottom": (cx, inner.bottom - h - m),
        "bottom_end": (inner.right - w - m, inner.bottom - h - m),
        "top_end": (inner.right - w - m, inner.top + m),
    }
    x, y = positions[child.anchor]
    return Rect(x, y, x + w, y + h)


def _cross(start: int, avail: int, size: int, align: str) -> int:
    if align == "center":
        return start + (avail - size) // 2
    if align == "end":
        return start + avail - size
    return start


def _place_column(view: View, inner: Rect, clip: Rect) -> None:
    kids = view.children
    heights = [None if (c.weight and not view.scrollable) else measure_height(c, c.width or inner.width)
               for c in kids]
    gaps = view.gap * (len(kids) - 1)
    fixed_total = sum(h for h in heights if h is not None) + gaps
    weight_total = sum(c.weight for c, h in zip(kids, heights, strict=True) if h is None) or 1.0
    free = max(0, inner.height - fixed_total)
    heights = [h if h is not None else int(free * c.weight / weight_total) for c, h in zip(kids, heights, strict=True)]
    view.content_extent = sum(heights) + gaps
    if view.scrollable:
        view.scroll = max(0, min(view.scroll, view.content_extent - inner.height))
    y = inner.top - (view.scroll if view.scrollable else 0)
    if view.justify == "center" and not view.scrollable:
        y += max(0, inner.height - view.content_extent) // 2
    for child, h in zip(kids, heights, strict=True):
        w = child.width if child.width is not None else inner.width
        x = _cross(inner.left, inner.width, w, child.align)
        _place(child, Rect(x, y, x + w, y + h), clip)
        y += h + view.gap


def _place_row(view: View, inner: Rect, clip: Rect) -> None:
    widths = _row_widths(view, inner.width)
    view.content_extent = sum(widths) + view.gap * (len(widths) - 1)
    if view.scrollable:
        view.scroll = max(0, min(view.scroll, view.content_extent - inner.width))
    x = inner.left - (view.scroll if view.scrollable else 0)
    for child, w in zip(view.children, widths, strict=True):
        h = child.height if child.height is not None else inner.height
        y = _cross(inner.top, inner.height, h, child.align)
        _place(child, Rect(x, y, x + w, y + h), clip)
        x += w + view.gap


# ---------------------------------------------------------------- queries

def hit_test(root: View, x: float, y: float, want: Callable[[View], bool]) -> View | None:
    """The topmost (last drawn) view under (x, y) that ``want`` accepts, searching only visible parts."""
    if not root.visible.contains(x, y):
        return None
    for child in reversed(root.children):
        found = hit_test(child, x, y, want)
        if found is not None:
            return found
    return root if want(root) else None


def scroll_container_at(root: View, x: float, y: float) -> View | None:
    return hit_test(root, x, y, lambda v: v.scrollable)


@dataclass(eq=False)
class Window:
    """One on-screen window. The hierarchy dump lists app, dialog, split-screen divider, IME and notification
    windows (in that z-order); the system bars are drawn but, as with the on-device ``uiautomator dump``, not
    dumped."""

    kind: Literal["app", "dialog", "popup", "divider", "ime", "toast", "notification", "status_bar", "nav_bar"]
    package: str
    root: View
    frame: Rect
    dim_behind: bool = False    # dialogs darken what lies beneath
    dim_area: Rect | None = None  # only this part (the dialog's task in split screen); None: the whole screen
    unfocused: bool = False     # the split-screen half the user did not touch last

    @property
    def dumped(self) -> bool:
        return self.kind in ("app", "dialog", "popup", "divider", "ime", "notification")
