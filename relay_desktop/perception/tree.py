"""The typed UI tree every dump format is parsed into: windows of nodes with their flags."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from relay_desktop.perception.geometry import Bounds

# Class-name endings Android uses for text inputs. uiautomator has no "editable" attribute, so the class
# is the only evidence; Compose text fields are reported as android.widget.EditText too.
_EDITABLE_SUFFIXES = ("EditText", "AutoCompleteTextView", "SearchAutoComplete", "ExtractEditText")


_NO_BOUNDS = Bounds(0, 0, 0, 0)


def is_editable_class(cls: str) -> bool:
    return cls.endswith(_EDITABLE_SUFFIXES)


class WindowKind(StrEnum):
    APP = "app"
    DIALOG = "dialog"
    SYSTEM = "system"        # status bar, navigation bar, notification shade
    KEYBOARD = "keyboard"
    OVERLAY = "overlay"      # invisible input layers (gesture areas): never cover anything

    @property
    def layer(self) -> int:
        """Stacking rank: dumps list windows in no reliable order, so kind decides what is on top."""
        return {"overlay": 0, "app": 1, "dialog": 2, "system": 3, "keyboard": 4}[self.value]


@dataclass(eq=False, slots=True)
class UINode:
    cls: str = ""
    resource_id: str = ""
    text: str = ""
    desc: str = ""
    hint: str = ""
    package: str = ""
    bounds: Bounds = _NO_BOUNDS
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    editable: bool = False
    scrollable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    enabled: bool = True
    password: bool = False
    visible: bool = True
    # A slider's AccessibilityNodeInfo.RangeInfo, when the dump carries it (``range-min``/``-max``/``-current``).
    range_min: float | None = None
    range_max: float | None = None
    range_current: float | None = None
    index: int = 0
    drawing_order: int | None = None
    window: int = 0
    order: int = 0           # position in a pre-order walk of the whole dump
    end: int = 0             # order of the last node in this subtree
    paint: int = 0           # position in drawing order: pre-order with siblings sorted by drawing-order
    paint_end: int = 0       # paint of the last node drawn in this subtree
    depth: int = 0
    parent: UINode | None = None
    children: list[UINode] = field(default_factory=list)

    @property
    def interactive(self) -> bool:
        return self.clickable or self.long_clickable or self.checkable or self.editable or self.scrollable

    @property
    def short_class(self) -> str:
        return self.cls.rsplit(".", 1)[-1]

    @property
    def id_name(self) -> str:
        """``com.app:id/search_button`` → ``search_button``."""
        return self.resource_id.rsplit("/", 1)[-1] if self.resource_id else ""

    def is_ancestor_of(self, other: UINode) -> bool:
        return self.order < other.order <= self.end

    def walk(self) -> Iterator[UINode]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def path(self) -> str:
        """Index path from the window root, e.g. ``0/2/1`` — how the inspector names a node."""
        parts = []
        node: UINode | None = self
        while node is not None:
            parts.append(str(node.index))
            node = node.parent
        return "/".join(reversed(parts))

    def __repr__(self) -> str:
        label = self.text or self.desc or self.resource_id
        return f"UINode({self.short_class} {label!r} {self.bounds.uiautomator()})"


@dataclass(eq=False, slots=True)
class UIWindow:
    index: int
    root: UINode
    kind: WindowKind
    package: str

    @property
    def bounds(self) -> Bounds:
        return self.root.bounds


@dataclass(eq=False)
class UITree:
    """A parsed dump. ``nodes`` is every node in pre-order; ``screen`` the display rectangle."""

    windows: list[UIWindow]
    nodes: list[UINode]
    screen: Bounds
    rotation: int = 0
    source_format: str = "uiautomator"   # "uiautomator", "uiautomator2" or "appium"
    warnings: list[str] = field(default_factory=list)

    def windows_by_layer(self) -> list[UIWindow]:
        """Bottom-most first."""
        return sorted(self.windows, key=lambda w: (w.kind.layer, w.index))

    def on_screen(self, bounds: Bounds) -> Bounds:
        """``bounds`` clipped to the screen (unclipped when the dump gave no screen size)."""
        return bounds if self.screen.empty else bounds.intersect(self.screen)

    def window_of(self, node: UINode) -> UIWindow:
        return self.windows[node.window]

    @property
    def packages(self) -> list[str]:
        return list(dict.fromkeys(w.package for w in self.windows if w.kind in (WindowKind.APP, WindowKind.DIALOG)))
