"""Views whose content exists only in pixels: a site drawn on a canvas (a Flutter web app in Chrome), a game's
SurfaceView. Accessibility sees one childless node; the picture shows everything; a tap lands where it was drawn.

A :class:`Canvas` keeps what it shows *off* the accessible tree. Either a ``drawing`` — an ordinary view tree
built with the widget kit, held as a template instead of as children — or a ``painter`` function that draws
itself (a game board). The renderer calls :meth:`Canvas.draw_pixels`, which lays a copy of the drawing out inside
the canvas and draws it; a tap lays another copy out the same way and hit-tests it, so the picture and the touch
targets agree exactly as they do for accessible views. Copies, because the screenshot is drawn on a worker thread
while taps arrive on the loop: the template built from the app's state is never mutated, like every view tree.

A drawing may scroll: the part marked as its ``scroller`` moves by the canvas's own scroll offset, which the phone
keeps per activity and swipes change (the canvas is the scroll container accessibility reports).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from PIL import ImageDraw

from relay_desktop.sim.paint import Ctx, Theme
from relay_desktop.sim.views import Rect, Style, View, hit_test, layout, measure_height
from relay_desktop.sim.widgets import draws_anything, paint

Painter = Callable[[Ctx, Rect], None]


@dataclass(eq=False)
class Canvas(View):
    drawing: View | None = None          # drawn inside the canvas (never dumped); see drawn()
    scroller: str = ""                   # key of the drawing's scrolling part, moved by the canvas's scroll
    painter: Painter | None = None       # or a function that draws the content itself
    # A game or a web page draws its own colours: the system's dark theme does not repaint them.
    own_colours: bool = False

    def __post_init__(self) -> None:
        self.style.kind = "canvas"
        if self.drawing is not None and self.on_touch is None:
            self.on_touch = self.touched

    def laid_out(self, rect: Rect) -> View | None:
        """A fresh copy of the drawing laid out inside ``rect`` (the canvas's place, in whatever coordinates)."""
        if self.drawing is None:
            return None
        tree = _copy(self.drawing)
        if self.scroller:
            part = tree.find(self.scroller)
            if part is not None:
                part.scroll = self.scroll
        return layout(tree, rect)

    def draw_pixels(self, ctx: Ctx, r: Rect) -> None:
        """Draw the content into ``r`` (the canvas's rectangle in the image ``ctx`` draws on)."""
        if self.own_colours and ctx.theme.dark:
            ctx = Ctx(ctx.img, ctx.draw, Theme(dark=False, dp=ctx.theme.dp))
        if self.painter is not None:
            self.painter(ctx, r)
        tree = self.laid_out(r)
        if tree is not None:
            _draw_tree(ctx, tree, Rect(0, 0, ctx.img.width, ctx.img.height))

    def touched(self, x: int, y: int) -> None:
        """A tap at (x, y) on the screen: whatever the drawing shows there takes it, as a web page's link would."""
        tree = self.laid_out(self.bounds)
        if tree is None:
            return
        target = hit_test(tree, x, y, lambda v: v.enabled and (v.clickable or v.on_touch is not None))
        if target is None:
            return
        if target.on_touch is not None:
            target.on_touch(x, y)
        elif target.on_click is not None:
            target.on_click()

    def view_at(self, x: int, y: int, want: Callable[[View], bool]) -> View | None:
        """The drawn view under (x, y) that ``want`` accepts (tests and task oracles locate drawn text with it)."""
        tree = self.laid_out(self.bounds)
        return None if tree is None else hit_test(tree, x, y, want)

    def drawn_views(self) -> list[View]:
        """Every drawn view, laid out where it shows on the screen now."""
        tree = self.laid_out(self.bounds)
        return [] if tree is None else [v for v in tree.walk() if not v.visible.empty]


def drawn(content: list[View], *, width: int, key: str, overlays: list[View] | None = None, gap: int = 0,
          padding: tuple[int, int, int, int] = (0, 0, 0, 0), bg: tuple[int, int, int] | None = None,
          **node: object) -> Canvas:
    """A scrolling page of ``content`` drawn on one canvas ``width`` px wide, with ``overlays`` (a banner, a
    dialog) drawn over it where their ``anchor`` puts them. ``node``: the canvas's own attributes as
    accessibility reports them (``cls``, ``text``, ``id``...)."""
    page = View(cls="page", key=f"{key}:page", children=content, scrollable=True, weight=1, gap=gap,
                padding=padding)
    root = View(orientation="stack", children=[page, *(overlays or [])], style=Style(bg=bg))
    canvas = Canvas(key=key, drawing=root, scroller=page.key, scrollable=True, **node)  # type: ignore[arg-type]
    # Swipes scroll the canvas by this extent (the phone's input reads it, as for any scroll container).
    canvas.content_extent = measure_height(page, width)
    return canvas


def _copy(view: View) -> View:
    """The tree's views copied (layout writes their bounds), sharing styles and handlers: a deep copy would
    also copy every app and phone a handler is bound to."""
    clone = copy.copy(view)
    clone.children = [_copy(child) for child in view.children]
    return clone


def _draw_tree(ctx: Ctx, view: View, clip: Rect) -> None:
    """The renderer's walk (render.py) for a drawing: each view's visible part, children over parents."""
    visible = view.visible.intersect(clip)
    if visible.empty:
        return
    if draws_anything(view):
        if visible == view.bounds:
            paint(ctx, view, view.bounds)
        else:
            # A view cut by the page's scrolling edge is drawn on a crop and pasted back, so nothing spills.
            layer = ctx.img.crop(visible)
            b = view.bounds
            shifted = Rect(b.left - visible.left, b.top - visible.top, b.right - visible.left, b.bottom - visible.top)
            paint(Ctx(layer, ImageDraw.Draw(layer), ctx.theme), view, shifted)
            ctx.img.paste(layer, (visible.left, visible.top))
    for child in view.children:
        _draw_tree(ctx, child, clip)
