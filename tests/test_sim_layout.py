"""Layout engine of the virtual phone: sizes, weights, scrolling and clipping, hit-testing."""

from __future__ import annotations

from relay_desktop.sim.views import Rect, View, hit_test, layout, measure_height


def test_column_stacks_fixed_heights_and_weights_share_the_rest() -> None:
    top, middle, bottom = View(height=100), View(weight=1), View(height=50)
    root = layout(View(children=[top, middle, bottom], gap=10), Rect(0, 0, 400, 1000))
    assert top.bounds == Rect(0, 0, 400, 100)
    assert middle.bounds == Rect(0, 110, 400, 940)
    assert bottom.bounds == Rect(0, 950, 400, 1000)
    assert root.content_extent == 1000


def test_row_gives_fixed_widths_first_and_weights_split_the_remainder() -> None:
    a, b, c = View(width=100), View(weight=1), View(weight=3)
    layout(View(orientation="h", children=[a, b, c], padding=(10, 0, 10, 0)), Rect(0, 0, 520, 50))
    assert a.bounds == Rect(10, 0, 110, 50)
    assert b.bounds == Rect(110, 0, 210, 50)
    assert c.bounds == Rect(210, 0, 510, 50)


def test_wrapped_text_grows_taller_when_narrower() -> None:
    text = View(cls="android.widget.TextView", text="a fairly long sentence that must wrap " * 3)
    assert measure_height(text, 300) > measure_height(text, 1000) > 0


def test_scrolled_content_is_clipped_to_the_scroll_view() -> None:
    items = [View(height=100, id=f"item{i}") for i in range(10)]
    scroller = View(children=items, scrollable=True, height=300, scroll=250)
    layout(View(children=[scroller]), Rect(0, 0, 200, 1000))
    assert scroller.scroll == 250
    assert items[0].visible.empty                       # scrolled off the top
    assert items[2].visible == Rect(0, 0, 200, 50)      # half cut by the top edge
    assert items[3].visible == Rect(0, 50, 200, 150)
    assert items[5].visible == Rect(0, 250, 200, 300)   # half cut by the bottom edge
    assert items[6].visible.empty


def test_scroll_offset_is_clamped_to_the_content() -> None:
    scroller = View(children=[View(height=100) for _ in range(5)], scrollable=True, height=300, scroll=10_000)
    layout(View(children=[scroller]), Rect(0, 0, 200, 1000))
    assert scroller.scroll == 200


def test_stack_anchors_and_hit_test_prefers_the_topmost_view() -> None:
    clicked: list[str] = []
    under = View(clickable=True, on_click=lambda: clicked.append("under"))
    fab = View(clickable=True, width=100, height=100, anchor="bottom_end", margin=20)
    root = layout(View(orientation="stack", children=[under, fab]), Rect(0, 0, 500, 800))
    assert fab.bounds == Rect(380, 680, 480, 780)
    assert hit_test(root, 400, 700, lambda v: v.clickable) is fab
    assert hit_test(root, 100, 100, lambda v: v.clickable) is under
    assert hit_test(root, 600, 100, lambda v: v.clickable) is None


def test_hit_test_ignores_the_clipped_part_of_a_view() -> None:
    items = [View(height=100, clickable=True, id=f"item{i}") for i in range(10)]
    scroller = View(children=items, scrollable=True, height=300)
    root = layout(View(children=[scroller, View(height=100, id="below")]), Rect(0, 0, 200, 1000))
    # item4 is laid out at y=400..500, but the scroll view ends at y=300: touches there miss it.
    assert items[4].bounds.top == 400
    assert hit_test(root, 50, 450, lambda v: v.clickable) is None
    assert hit_test(root, 50, 250, lambda v: v.clickable) is items[2]
