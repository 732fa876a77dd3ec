"""Every screen the virtual phone's task suite passes through, as dumps — for perception benchmarks and
tests that need many realistic screens (keyboards up, dialogs open, lists scrolled) without a phone."""

from __future__ import annotations

from dataclasses import dataclass

from relay_desktop.sim.hierarchy import dump_xml_pretty
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import ALL_TASKS, PhoneDriver, Task

__all__ = ["TourScreen", "tour_screens"]


@dataclass(frozen=True)
class TourScreen:
    name: str        # "<task id>/<step>"
    xml: str         # the on-device uiautomator dump
    pretty_xml: str  # the same screen as uiautomator2's multi-window dump


class _RecordingDriver(PhoneDriver):
    def __init__(self, phone: VirtualPhone, task: Task, screens: list[TourScreen], seen: set[str]) -> None:
        super().__init__(phone)
        self.task, self.screens, self.seen = task, screens, seen
        self.step = 0

    async def dump_hierarchy(self) -> str:
        xml = await super().dump_hierarchy()
        if xml not in self.seen:
            self.seen.add(xml)
            self.step += 1
            pretty = dump_xml_pretty(self.phone.windows(), rotation=self.phone.rotation)
            self.screens.append(TourScreen(f"{self.task.id}/{self.step}", xml, pretty))
        return xml


async def tour_screens(tasks: list[Task] | None = None) -> list[TourScreen]:
    """Run each task's scripted solution on a fresh phone and keep every distinct screen it looked at."""
    screens: list[TourScreen] = []
    seen: set[str] = set()
    for task in tasks if tasks is not None else ALL_TASKS:
        phone = VirtualPhone()
        task.setup(phone)
        driver = _RecordingDriver(phone, task, screens, seen)
        await driver.dump_hierarchy()
        await task.oracle(driver)
        await driver.dump_hierarchy()
    return screens
