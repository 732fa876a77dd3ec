"""One half of a split screen, seen as a phone of its own by the agent loop that works in it.

In split screen two agent loops share one phone, each working in one app. Each must see only its own app
(an element list holding the other half's buttons invites taps there), and what it does must land in its own
half. :class:`WindowPhone` wraps the real phone for one app of the pair:

- the screen dump keeps every window except the other app's and the divider, so the element list, the
  screen's fingerprint and every re-read are about this half alone (system bars and the keyboard stay);
- the screenshot has the other app's half painted over, so neither the model nor OCR reads it;
- a swipe that does not lie inside this half (an untargeted scroll is aimed at the middle of the whole screen,
  which is the divider) is scaled into it;
- keys and text go to the focused half, which is the half touched last. Before a key or text reaches the phone,
  a half that does not have the focus takes it back the way a person would: it taps its text field again (the
  focused one, or the one it tapped last), at its end, so the cursor stays after the text; with no field, a spot
  that does nothing (a plain label). The halves' turns on the phone are serialised by the coordinator, so
  nothing comes between that tap and the key;
- Home, Recents, the notification shade and opening another app would end split screen for both loops: they
  are refused with a reason the model can act on.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from relay_desktop.agent.steps.actions import StepError
from relay_desktop.device.models import CurrentApp
from relay_desktop.perception import Bounds

if TYPE_CHECKING:
    from PIL import Image

    from relay_desktop.agent.ports import Phone

__all__ = ["DIVIDER_ID", "SplitFocus", "WindowPhone", "window_bounds"]

DIVIDER_ID = "docked_divider"      # AOSP System UI's divider window: docked_divider_handle, _background, _bar
_LEAVING_KEYS = {"HOME", "KEYCODE_HOME", "3", "APP_SWITCH", "KEYCODE_APP_SWITCH", "187"}
_MASK = (32, 33, 36)


@dataclass
class SplitFocus:
    """Which half has the focus: the one touched last (Android gives focus to the window a finger goes down in)."""

    package: str = ""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)   # one half on the phone at a time


def _is_divider(window: ET.Element) -> bool:
    return any(DIVIDER_ID in (node.get("resource-id") or "") for node in window.iter())


def _bounds(node: ET.Element) -> Bounds | None:
    return Bounds.parse(node.get("bounds") or "")


def window_bounds(xml: str, package: str) -> Bounds | None:
    """The bounds of ``package``'s app window in a dump (its largest top-level node), or None."""
    return _largest(w for w in ET.fromstring(xml) if w.get("package") == package)


def _largest(windows: Iterable[ET.Element]) -> Bounds | None:
    """The bounds of the largest of these top-level nodes (an app's window, not its popups)."""
    return max((b for w in windows if (b := _bounds(w))), key=lambda b: b.area, default=None)


class WindowPhone:
    """The phone as one app of a split screen sees it (see the module's docstring)."""

    def __init__(self, phone: Phone, package: str, other: str, focus: SplitFocus, label: str = "") -> None:
        self.phone = phone
        self.package = package
        self.other = other
        self.focus = focus
        self.label = label or package
        self.serial = phone.serial
        self.own: Bounds | None = None         # this app's window, from the newest dump
        self.hidden: Bounds | None = None      # the other app's window
        self.display = (0, 0)                  # the dump's extent: what the screenshot's pixels map to
        self._quiet: tuple[int, int] | None = None   # a spot of this half that a tap does nothing on
        self._fields: list[_Field] = []               # this half's text fields, from the newest dump
        self._last_field: str = ""                    # the one this half tapped last (its key)

    def __getattr__(self, name: str) -> Any:
        # Everything this half does not change (settling, notices, app lists, the device's context) is the phone's.
        return getattr(self.phone, name)

    def describe_half(self) -> str:
        where = "the whole screen"
        if self.own is not None and self.hidden is not None:
            if self.own.top >= self.hidden.bottom - 1:
                where = "the bottom half"
            elif self.own.bottom <= self.hidden.top + 1:
                where = "the top half"
            else:
                where = "the left half" if self.own.left < self.hidden.left else "the right half"
        return where

    # ------------------------------------------------------------ what this half sees

    async def dump_hierarchy(self) -> str:
        xml = await self.phone.dump_hierarchy()
        return await asyncio.to_thread(self._restrict, xml)

    def _restrict(self, xml: str) -> str:
        root = ET.fromstring(xml)
        extent = [b for w in root if (b := _bounds(w))]
        if extent:
            self.display = (max(b.right for b in extent), max(b.bottom for b in extent))
        own = [w for w in root if w.get("package") == self.package]
        hidden = [w for w in root if w.get("package") == self.other]
        self.own, self.hidden = _largest(own), _largest(hidden)
        for window in [*hidden, *(w for w in root if _is_divider(w))]:
            root.remove(window)
        self._quiet = next((p for w in own if (p := _quiet_spot(w, self.own))), None)
        self._fields = [_Field(b, node.get("focused") == "true", _field_key(node, number))
                        for w in own for number, node in enumerate(n for n in w.iter() if _editable(n))
                        if (b := _bounds(node)) is not None and not b.empty]
        return ET.tostring(root, encoding="unicode")

    async def screenshot(self) -> Image.Image:
        return await self._masked(await self.phone.screenshot())

    async def screenshot_since(self, moment: float) -> Image.Image:
        since = getattr(self.phone, "screenshot_since", None)
        image = await since(moment) if since is not None else await self.phone.screenshot()
        return await self._masked(image)

    async def _masked(self, image: Image.Image) -> Image.Image:
        hidden, (width, height) = self.hidden, self.display
        if hidden is None or not width or not height:
            return image

        def paint() -> Image.Image:
            from PIL import ImageDraw

            copy = image.convert("RGB")   # a new image: a mirror frame is shared with the window
            sx, sy = copy.width / width, copy.height / height
            ImageDraw.Draw(copy).rectangle((hidden.left * sx, hidden.top * sy, hidden.right * sx - 1,
                                            hidden.bottom * sy - 1), fill=_MASK)
            return copy

        return await asyncio.to_thread(paint)

    async def current_app(self) -> CurrentApp | None:
        front = await self.phone.current_app()
        if front is not None and front.package == self.package:
            return front
        return CurrentApp(self.package, "")      # both halves are resumed; this one's app is this half's

    # ------------------------------------------------------------ what this half does

    async def tap(self, x: int, y: int) -> None:
        await self.phone.tap(x, y)
        self._touched(x, y)
        field = next((f for f in self._fields if f.bounds.contains_point(x, y)), None)
        if field is not None:
            self._last_field = field.key

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        await self.phone.long_press(x, y, duration_ms)
        self._touched(x, y)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        own = self.own
        if own is not None and not (own.contains_point(x1, y1) and own.contains_point(x2, y2)) and all(self.display):
            # Aimed at the whole screen: the same gesture, scaled into this half.
            width, height = self.display
            x1, x2 = (own.left + round(x * own.width / width) for x in (x1, x2))
            y1, y2 = (own.top + round(y * own.height / height) for y in (y1, y2))
            x1, x2 = (min(max(x, own.left + 1), own.right - 2) for x in (x1, x2))
            y1, y2 = (min(max(y, own.top + 1), own.bottom - 2) for y in (y1, y2))
        await self.phone.swipe(x1, y1, x2, y2, duration_ms)
        self._touched(x1, y1)

    async def press_key(self, key: int | str) -> None:
        if str(key).strip().upper() in _LEAVING_KEYS:
            raise StepError(f"not in split screen: {key} would leave it for both apps. Work inside "
                            f"{self.label}; say complete when your part is done")
        await self._take_focus()
        await self.phone.press_key(key)

    async def press_keys(self, *keys: int | str) -> None:
        await self._take_focus()
        await self.phone.press_keys(*keys)

    async def type_text(self, text: str) -> None:
        await self._take_focus()
        await self.phone.type_text(text)

    async def launch_app(self, name_or_package: str) -> str:
        resolve = getattr(self.phone, "resolve_app", None)
        package = await resolve(name_or_package) if resolve is not None else name_or_package
        if package not in (self.package, self.label):
            raise StepError(f"opening {name_or_package} would end split screen for both apps: this half is "
                            f"{self.label}'s. Work inside {self.label}")
        return self.package

    def _touched(self, x: int, y: int) -> None:
        own = self.own
        if own is None or own.contains_point(x, y):
            self.focus.package = self.package
        elif self.hidden is not None and self.hidden.contains_point(x, y):
            self.focus.package = self.other

    async def _take_focus(self) -> None:
        if self.focus.package in ("", self.package):
            return
        # The field may have moved (the keyboard came and went): it is found again by its id.
        fields = [f for f in self._fields if f.focused] + [f for f in self._fields if f.key == self._last_field]
        if fields:
            field = fields[0].bounds
            await self.tap(max(field.left + 1, field.right - 12), field.center[1])
        elif self._quiet is not None:
            await self.tap(*self._quiet)
        else:
            raise StepError(f"the other app of the split screen has the focus, so keys would go there: tap "
                            f"an element of {self.label} first")


@dataclass(frozen=True)
class _Field:
    bounds: Bounds
    focused: bool
    key: str          # its resource id, or its place among the window's fields when it has none


def _field_key(node: ET.Element, number: int) -> str:
    return node.get("resource-id") or f"#{number}"


def _editable(node: ET.Element) -> bool:
    """A text field, as the dump tells it: an EditText (or a subclass named so), or a node marked editable."""
    cls = node.get("class") or node.tag
    return node.get("editable") == "true" or cls.endswith(("EditText", "AutoCompleteTextView"))


def _quiet_spot(window: ET.Element, own: Bounds | None) -> tuple[int, int] | None:
    """The middle of a label nothing reacts to (a text with no clickable, editable or scrolling node around it):
    tapping it moves the focus to this window and does nothing else."""

    def walk(node: ET.Element, busy: bool) -> tuple[int, int] | None:
        busy = busy or any(node.get(flag) == "true" for flag in ("clickable", "long-clickable", "scrollable",
                                                                 "checkable", "focusable"))
        bounds = _bounds(node)
        if (not busy and not len(node) and (node.get("text") or "").strip() and bounds is not None
                and bounds.width > 4 and bounds.height > 4 and (own is None or own.contains_point(*bounds.center))):
            return bounds.center
        for child in node:
            spot = walk(child, busy)
            if spot is not None:
                return spot
        return None

    return walk(window, False)
