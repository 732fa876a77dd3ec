"""What of each node a user can actually see and touch.

A node is out when it is invisible, has no area, lies off the screen, or is fully covered. Two things
cover: a window stacked above (the keyboard over the app, the status bar over its strip; a dialog that
holds controls blocks the whole app beneath it, as Android dismisses it on an outside touch instead of
passing the touch through), and, inside one window, a clickable view drawn later (by ``drawing-order``,
when the dump has it) that is not an
ancestor or descendant — Android hands a touch to the topmost child that takes it, so whatever lies
under a clickable overlay cannot be reached there.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from relay_desktop.perception.geometry import Bounds, visible_pieces
from relay_desktop.perception.tree import UINode, UITree, WindowKind

__all__ = ["Visibility", "compute_visibility", "tap_point"]


@dataclass
class Visibility:
    """Per-node results, indexed by ``UINode.order``. ``pieces`` is empty for nodes that are out."""

    pieces: list[list[Bounds]]
    reasons: dict[str, int] = field(default_factory=dict)   # why nodes were dropped, counted

    def visible(self, node: UINode) -> bool:
        return bool(self.pieces[node.order])

    def largest_piece(self, node: UINode) -> Bounds | None:
        pieces = self.pieces[node.order]
        return max(pieces, key=lambda p: p.area) if pieces else None


def _window_covers(tree: UITree, keyboard: Bounds | None) -> dict[int, list[Bounds]]:
    """For each window index, the rectangles of what is stacked above it."""
    stacked = tree.windows_by_layer()
    covers: dict[int, list[Bounds]] = {w.index: [] for w in tree.windows}
    for position, window in enumerate(stacked):
        above = [w for w in stacked[position + 1:] if w.kind is not WindowKind.OVERLAY]
        for upper in above:
            modal = upper.kind is WindowKind.DIALOG and window.kind is WindowKind.APP and any(
                n.interactive for n in upper.root.walk())
            covers[window.index].append(tree.screen if modal else upper.bounds)
        if keyboard is not None and window.kind is not WindowKind.KEYBOARD:
            covers[window.index].append(keyboard)
    return covers


def compute_visibility(tree: UITree, keyboard: Bounds | None = None) -> Visibility:
    """``keyboard``: the keyboard's area when the dump does not include its window (single-window dumps
    taken while it is up), so fields beneath it count as covered."""
    if keyboard is not None and any(w.kind is WindowKind.KEYBOARD for w in tree.windows):
        keyboard = None
    window_covers = _window_covers(tree, keyboard)
    pieces: list[list[Bounds]] = [[] for _ in tree.nodes]
    reasons: dict[str, int] = {}

    def drop(reason: str) -> None:
        reasons[reason] = reasons.get(reason, 0) + 1

    # Clickable views in paint order: a node is drawn under every clickable painted after its subtree
    # (such a view is never its ancestor or descendant).
    clickables_by_window: dict[int, list[UINode]] = {w.index: [] for w in tree.windows}
    for n in tree.nodes:
        # Without drawing-order (dumps before Android 13, Appium) child order says nothing about what is on
        # top: apps raise views with elevation (TikTok's buttons over its full-screen video view).
        if n.clickable and n.visible and not n.bounds.empty and n.drawing_order is not None:
            clickables_by_window[n.window].append(n)
    for ns in clickables_by_window.values():
        ns.sort(key=lambda n: n.paint)
    clickable_paints = {w: [n.paint for n in ns] for w, ns in clickables_by_window.items()}
    hidden_window = {w.index for w in tree.windows if w.kind is WindowKind.OVERLAY}
    invisible_until = -1   # end order of an invisible ancestor's subtree
    for node in tree.nodes:
        if not (node.interactive or node.text or node.desc):
            # Bare layout containers are never shown to the model; only their invisibility matters.
            if not node.visible:
                invisible_until = max(invisible_until, node.end)
            continue
        if node.order <= invisible_until:
            drop("invisible")
            continue
        if not node.visible or node.window in hidden_window:
            invisible_until = node.end
            drop("invisible")
            continue
        if node.bounds.empty:
            drop("zero-area")
            continue
        clipped = tree.on_screen(node.bounds)
        if clipped.empty:
            drop("off-screen")
            continue
        covers = [c for c in window_covers[node.window] if c.intersects(clipped)]
        window_clickables = clickables_by_window[node.window]
        paints = clickable_paints[node.window]
        # Only clickables painted after this whole subtree are drawn above it (bisect skips the rest).
        for other in window_clickables[bisect.bisect_right(paints, node.paint_end):]:
            if other.bounds.intersects(clipped):
                covers.append(other.bounds)
        visible = visible_pieces(clipped, covers) if covers else [clipped]
        if not visible:
            drop("covered")
            continue
        pieces[node.order] = visible
    return Visibility(pieces, reasons)


def tap_point(pieces: list[Bounds], avoid: list[Bounds] = ()) -> tuple[int, int] | None:
    """The centre of the largest visible piece, preferring parts away from ``avoid`` (controls nested in
    this one, whose own action a tap on the container must not trigger)."""
    if not pieces:
        return None
    candidates = [p for piece in pieces for p in visible_pieces(piece, list(avoid))] if avoid else []
    best = max(candidates or pieces, key=lambda p: p.area)
    return best.center
