"""What the agent needs from the outside world, as protocols: a phone to act on, and models to ask.

`relay_desktop.device.Device` is a phone; `relay_desktop.llm.ModelRouter` is a set of models. Tests plug in
scripted fakes of the same shape, and the mirror (scrcpy) can take over screenshots and input later without
the agent changing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PIL import Image

    from relay_desktop.device.models import AppInfo, CurrentApp, DeviceContext
    from relay_desktop.llm.costs import CostMeter
    from relay_desktop.llm.types import LLMRequest, LLMResponse, Role


class Phone(Protocol):
    serial: str

    async def screenshot(self) -> Image.Image: ...
    async def dump_hierarchy(self) -> str: ...
    async def tap(self, x: int, y: int) -> None: ...
    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None: ...
    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...
    async def press_key(self, key: int | str) -> None: ...
    async def press_keys(self, *keys: int | str) -> None: ...
    async def type_text(self, text: str) -> None: ...
    async def launch_app(self, name_or_package: str) -> str: ...
    async def installed_apps(self, refresh: bool = False) -> list[AppInfo]: ...
    async def current_app(self) -> CurrentApp | None: ...
    async def keyboard_shown(self) -> bool: ...
    async def device_context(self) -> DeviceContext: ...


class Models(Protocol):
    """Anything that answers a request for a role (fast, planning, verifier)."""

    async def generate(self, role: Role, request: LLMRequest, *, meter: CostMeter | None = None) -> LLMResponse: ...


async def screenshot_at(phone: Phone, moment: float) -> Any:
    """A screenshot showing the screen at ``moment`` or later. A mirror's newest frame can be older than that
    (frames are seconds late on a busy machine) while the UI dump is current: a picture that contradicts the
    element list misleads a model into redoing what already worked."""
    since = getattr(phone, "screenshot_since", None)
    return await since(moment) if since is not None else await phone.screenshot()
