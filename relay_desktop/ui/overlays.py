"""What the mirror view draws over the phone, as small plain models the view paints.

Coordinates are device pixels; the view maps them to the widget. No Qt here beyond nothing at all: the models
are fed from the agent's events and tested without a window.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from relay_desktop.perception import Bounds, ElementMap
from relay_desktop.perception.tree import WindowKind

__all__ = ["Box", "CursorModel", "ElementBoxes"]


@dataclass(frozen=True)
class Box:
    id: str
    bounds: Bounds
    kind: str          # "clickable", "editable", "scrollable", "text"
    label: str


def _kind(element: object) -> str:
    role = getattr(element, "role", "")
    if role == "field":
        return "editable"
    if role in ("scroll", "pager"):
        return "scrollable"
    return "clickable" if getattr(element, "interactive", False) else "text"


@dataclass
class ElementBoxes:
    boxes: list[Box] = field(default_factory=list)
    target: Bounds | None = None           # the current action's element
    keyboard: Bounds | None = None
    screen: tuple[int, int] = (0, 0)

    def update(self, element_map: ElementMap) -> None:
        self.boxes = [Box(e.id, e.bounds, _kind(e), e.name) for e in element_map.elements
                      if e.window is not WindowKind.SYSTEM]
        self.keyboard = element_map.keyboard
        self.screen = (element_map.screen.width, element_map.screen.height)
        self.target = None

    def clear(self) -> None:
        self.boxes, self.target, self.keyboard, self.screen = [], None, None, (0, 0)

    def smallest_at(self, x: float, y: float) -> Box | None:
        hits = [b for b in self.boxes if b.bounds.contains_point(x, y)]
        return min(hits, key=lambda b: b.bounds.area, default=None)


CURSOR_HOLD_S = 1.2       # the dot stays this long after landing, so the eye finds where the agent acted ...
CURSOR_FADE_S = 0.6       # ... then fades: a dot left for good reads as the agent still pointing there


@dataclass
class CursorModel:
    """A cursor that travels from where it was to each tap target; a ripple when it lands, a trail on swipes;
    then it fades out. ``position`` is kept (the next move starts there); ``opacity`` says how much shows."""

    position: tuple[float, float] | None = None
    opacity: float = 0.0                   # 1 while moving, landing and held; 0 once faded
    since_landing: float = 0.0
    start: tuple[float, float] = (0.0, 0.0)
    target: tuple[float, float] = (0.0, 0.0)
    progress: float = 1.0                  # 0 → 1 along the way
    ripple: float = 0.0                    # 0 → 1 after landing; 1 means no ripple
    trail: list[tuple[float, float]] = field(default_factory=list)

    def move_to(self, x: float, y: float, swipe_from: tuple[float, float] | None = None) -> None:
        """A tap lands at (x, y) at once, rippling: ActionStarted comes just before the phone acts, and a cursor
        that travelled there first rippled after the switch had flipped (0.7 s late on a busy loop). A swipe
        travels from ``swipe_from`` along its way, as the finger does."""
        self.start = swipe_from or self.position or (x, y)
        self.target = (x, y)
        self.trail = [self.start] if swipe_from is not None else []
        self.opacity, self.since_landing = 1.0, 0.0
        if swipe_from is None:
            self.position, self.progress, self.ripple = (x, y), 1.0, 0.0
        else:
            self.position, self.progress, self.ripple = swipe_from, 0.0, 1.0

    def advance(self, dt: float, duration: float = 0.35) -> bool:
        """Step the animation by ``dt`` seconds; True while something still moves."""
        if self.progress < 1.0:
            self.progress = min(1.0, self.progress + dt / duration)
            t = 1 - (1 - self.progress) ** 3           # ease-out: fast start, gentle landing
            sx, sy = self.start
            tx, ty = self.target
            self.position = (sx + (tx - sx) * t, sy + (ty - sy) * t)
            if self.trail:
                self.trail.append(self.position)
            if self.progress >= 1.0:
                self.ripple = 0.0
            return True
        if self.ripple < 1.0:
            self.ripple = min(1.0, self.ripple + dt / 0.4)
            return True
        if self.opacity > 0.0:
            self.since_landing += dt
            faded = (self.since_landing - CURSOR_HOLD_S) / CURSOR_FADE_S
            self.opacity = max(0.0, min(1.0, 1.0 - faded))
            if self.opacity == 0.0:
                self.trail = []
            return True
        return False

    def hide(self) -> None:
        """Gone at once (the run stopped or ended); the next move still starts from the last place."""
        self.opacity, self.ripple, self.progress, self.trail = 0.0, 1.0, 1.0, []

    @property
    def visible(self) -> bool:
        return self.position is not None and self.opacity > 0.0
