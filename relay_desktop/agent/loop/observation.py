"""One look at the phone: the screen as the agent saw it at one moment, with the hashes its guards use."""

from __future__ import annotations

from dataclasses import dataclass

from relay_desktop.device.models import DeviceContext
from relay_desktop.perception import ElementMap, PreparedScreenshot, layout_hash, screen_signature
from relay_desktop.perception import semantic_fingerprint as fingerprint_of

__all__ = ["LAUNCHER_HINTS", "PRIVATE_APP", "PROTECTED", "Observation"]

# Why a look's picture was kept back (Observation.withheld).
PROTECTED = "protected"            # the app forbids screenshots (FLAG_SECURE): the capture is black
PRIVATE_APP = "private app"        # the user listed the app in Settings → Private apps

# Package name fragments of home-screen apps (AOSP, Pixel, Samsung, Xiaomi, ...); the virtual phone's is
# com.android.launcher3.
LAUNCHER_HINTS = ("launcher", "nexuslauncher", "trebuchet", ".home", "miui.home")
_OVERVIEW_IDS = ("id/snapshot", "id/clear_all", "id/overview_panel")


@dataclass(frozen=True, eq=False)
class Observation:
    element_map: ElementMap
    screenshot: PreparedScreenshot | None
    context: DeviceContext
    captured_at: float            # monotonic seconds
    capture_ms: float             # wall time of the concurrent capture
    layout_hash: str
    fingerprint: str
    signature: str
    pixels: bytes | None = None   # grey thumbnail of the picture (perception.pixels), when there was one
    # Why no picture of this screen goes to a model, when one was taken and kept back (agent.capture): PROTECTED
    # (the app forbids screenshots: FLAG_SECURE) or PRIVATE_APP (the user listed the app in Settings).
    withheld: str = ""

    @classmethod
    def of(cls, element_map: ElementMap, screenshot: PreparedScreenshot | None, context: DeviceContext,
           captured_at: float, capture_ms: float, pixels: bytes | None = None, *,
           withheld: str = "") -> Observation:
        return cls(element_map, screenshot, context, captured_at, capture_ms, layout_hash(element_map),
                   fingerprint_of(element_map), screen_signature(element_map), pixels, withheld)

    @property
    def app(self) -> str:
        """Package of the app in front (from the window manager, else from the dump)."""
        if self.context.current_app is not None:
            return self.context.current_app.package
        packages = [p for p in self.element_map.tree.packages if p != "com.android.systemui"]
        return packages[0] if packages else ""

    @property
    def display(self) -> tuple[int, int]:
        """The whole display's size in pixels, turned as the screen is: what screen points (taps, @x,y) are in."""
        c = self.context
        if c.screen_width and c.screen_height:
            return c.screen_width, c.screen_height
        shot = self.screenshot
        return (shot.source_width, shot.source_height) if shot is not None else \
            (self.element_map.screen.width, self.element_map.screen.height)

    def screen_point(self, x: float, y: float) -> tuple[int, int]:
        """A point of the screenshot the model was sent → the phone's pixel it shows. The picture may be scaled
        (and a mirror's frame is smaller than the display), so the model is never asked to do this sum itself.
        Raises ValueError when no picture was sent or the point is off it."""
        if self.screenshot is None:
            raise ValueError("no screenshot was sent with this screen")
        return self.screenshot.to_screen(x, y, self.display)

    @property
    def keyboard_shown(self) -> bool:
        return self.context.keyboard_shown or self.element_map.keyboard is not None

    @property
    def on_launcher(self) -> bool:
        return any(hint in self.app for hint in LAUNCHER_HINTS)

    @property
    def in_overview(self) -> bool:
        """Recent apps is showing: the launcher's package, but not the home screen (Launcher3's cards are
        ``snapshot`` views; some launchers run Overview as an activity of its own)."""
        if not self.on_launcher:
            return False
        current = self.context.current_app
        if current is not None and "recents" in current.activity.lower():
            return True
        return any(n.resource_id.endswith(_OVERVIEW_IDS) for n in self.element_map.tree.nodes)
