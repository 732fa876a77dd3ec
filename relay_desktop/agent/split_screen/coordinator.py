"""Split screen: two apps side by side, one agent loop each (the spec's SplitScreenCoordinator).

When the planning agent recommends it (a task that copies from one app into another), the coordinator puts
the phone in split screen the way a user does on Android 12 and later — Recents, the first app's icon above
its card, "Split screen", then the second app's card — and checks that both apps are on screen. Then two
:class:`WindowAgentLoop` run at once, one per half, each with its own element list and conversation, sharing a
note of facts; they take turns on the phone while their models think in parallel.

The run ends when both parts are done (success), or as soon as one part fails or runs out of steps: the other
is stopped, since the user's task needs both. If the phone cannot enter split screen (an app not installed,
no "Split screen" entry, a launcher laid out differently), the ordinary loop carries on and is told why.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from relay_desktop.agent.events import LogLine, Outcome
from relay_desktop.agent.memory.facts import Memory
from relay_desktop.agent.split_screen.window_loop import StepCounter, WindowAgentLoop, part_task
from relay_desktop.agent.split_screen.window_phone import SplitFocus, WindowPhone, window_bounds
from relay_desktop.device.app_labels import matching_apps
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.types import Message
from relay_desktop.perception import Bounds, UINode, parse_hierarchy

if TYPE_CHECKING:
    from relay_desktop.agent.loop.agent_loop import AgentLoop
    from relay_desktop.agent.supervisors.planning import SplitScreenRecommendation

__all__ = ["SplitScreenCoordinator", "SplitScreenError"]

SETTLE_S = 0.8                       # without a mirror to watch, how long a launcher animation is given
WAIT_S = 5.0                         # how long each screen of the way in may take to show
POLL_S = 0.25
_SPLIT_ENTRY = re.compile(r"^split(\s+screen|\s+top|\s+left)?$", re.I)   # the menu entry across Android versions


class SplitScreenError(Exception):
    """Split screen could not be entered; the message says what was missing."""


class SplitScreenCoordinator:
    def __init__(self, parent: AgentLoop, recommendation: SplitScreenRecommendation) -> None:
        self.parent = parent           # the run's own loop, whose run this becomes
        self.recommendation = recommendation
        self.phone = parent.phone

    def log(self, message: str, level: str = "info") -> None:
        self.parent.emit(LogLine(run_id=self.parent.run_id, message=f"Split screen: {message}", level=level,
                              step=self.parent.iteration or None))

    async def run(self) -> tuple[Outcome, str, str] | None:
        """Enter split screen and run both parts: the run's outcome, reason and answer, or None if it could not
        be entered."""
        recommendation = self.recommendation
        try:
            top, bottom = await self._apps(recommendation.apps)
            self.log(f"{top.label} above, {bottom.label} below"
                     + (f" ({recommendation.reason})" if recommendation.reason else ""))
            await self.enter(top, bottom)
        except SplitScreenError as exc:
            self.log(f"not entered: {exc}. Carrying on in one window.", "warning")
            self.parent.conversation.add(Message.user(
                f"The planning agent recommended split screen with {' and '.join(recommendation.apps)}, but it "
                f"could not be entered ({exc}). Do the task by switching between the apps instead."))
            return None
        return await self._run_parts(top, bottom)

    async def _apps(self, names: Sequence[str]) -> tuple[AppInfo, AppInfo]:
        installed = await self.parent.context.installed_apps()
        found = []
        for name in names:
            matches = matching_apps(installed, name)
            if len(matches) != 1:
                raise SplitScreenError(f"no single installed app is called {name!r}" if not matches else
                                       f"{name!r} could be {', '.join(a.label for a in matches[:4])}")
            found.append(matches[0])
        if found[0].package == found[1].package:
            raise SplitScreenError("both halves would be the same app")
        return found[0], found[1]

    # ------------------------------------------------------------ entering, as a user does

    async def enter(self, top: AppInfo, bottom: AppInfo) -> None:
        """Recents → ``top``'s icon → "Split screen" → ``bottom``'s card; both apps on screen afterwards. Each
        screen of the way is waited for (launchers animate), not assumed after a fixed pause."""
        icon = await self._in_recents(top, bottom)
        await self._tap(icon, f"{top.label}'s icon in Recents")
        entry = await self._wait_for(lambda nodes: self._find(
            nodes, lambda n: _SPLIT_ENTRY.match((n.text or n.desc).strip()) is not None))
        if entry is None:
            await self.phone.press_key("BACK")
            raise SplitScreenError(f"{top.label}'s menu in Recents has no \"Split screen\" entry (the app may not "
                                   "support it)")
        await self._tap(entry, "\"Split screen\"")
        card = await self._wait_for(lambda nodes: self._card(nodes, bottom))
        if card is not None:
            await self._tap(card, f"{bottom.label}'s card")
        else:       # not among the cards: opened from its icon, which fills the other half as well
            self.log(f"{bottom.label} has no card left in Recents; opening it")
            await self.phone.launch_app(bottom.package)
        halves: tuple[Bounds, Bounds] | None = None

        async def side_by_side() -> bool:
            nonlocal halves
            xml = await self.phone.dump_hierarchy()
            upper, lower = window_bounds(xml, top.package), window_bounds(xml, bottom.package)
            halves = (upper, lower) if upper is not None and lower is not None and not upper.intersects(lower) \
                else None
            return halves is not None

        if not await self._until(side_by_side):
            raise SplitScreenError(f"after choosing {bottom.label}, the screen does not show both apps side by side")
        assert halves is not None
        self.log(f"entered: {top.label} at {halves[0].uiautomator()}, {bottom.label} at {halves[1].uiautomator()}")

    async def _in_recents(self, top: AppInfo, bottom: AppInfo) -> UINode:
        """Recents open with ``top``'s card icon found; apps not in Recents yet are opened first (the second
        one, then the first, so the first's card is the newest)."""
        await self.phone.press_key("APP_SWITCH")
        if await self._wait_for(_overview) is not None:
            icon = await self._wait_for(lambda nodes: self._icon(nodes, top), timeout=1.0)
            if icon is not None:
                return icon
            await self.phone.press_key("BACK")
        self.log(f"{top.label} is not in Recents; opening {bottom.label} and {top.label} first")
        for app in (bottom, top):
            await self.phone.launch_app(app.package)
            await self._settle()
        await self.phone.press_key("APP_SWITCH")
        icon = await self._wait_for(lambda nodes: self._icon(nodes, top) if _overview(nodes) else None)
        if icon is None:
            await self.phone.press_key("BACK")
            raise SplitScreenError(f"Recents shows no icon for {top.label}'s card")
        return icon

    async def _wait_for(self, find: Callable[[list[UINode]], UINode | None],
                        timeout: float = WAIT_S) -> UINode | None:
        """The node ``find`` picks on the screen, once the screen shows it (None after ``timeout``)."""
        found: UINode | None = None

        async def shown() -> bool:
            nonlocal found
            found = find(parse_hierarchy(await self.phone.dump_hierarchy()).nodes)
            return found is not None

        await self._until(shown, timeout)
        return found

    @staticmethod
    async def _until(check: Callable[[], Awaitable[bool]], timeout: float = WAIT_S) -> bool:
        deadline = time.monotonic() + timeout
        while not await check():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
        return True

    async def _settle(self) -> None:
        wait_settled = getattr(self.phone, "wait_settled", None)
        if wait_settled is None or not await wait_settled():
            await asyncio.sleep(SETTLE_S)

    async def _tap(self, node: UINode, what: str) -> None:
        x, y = node.bounds.center
        self.log(f"tap {what}")
        await self.phone.tap(x, y)

    @staticmethod
    def _find(nodes: list[UINode], test: object) -> UINode | None:
        return next((n for n in nodes if n.visible and not n.bounds.empty and test(n)), None)  # type: ignore[operator]

    def _icon(self, nodes: list[UINode], app: AppInfo) -> UINode | None:
        """The icon above an app's card: named by the app's label (Launcher3's ``icon``), and tappable."""
        label = app.label.lower()
        return self._find(nodes, lambda n: n.desc.strip().lower() == label and (n.clickable or _is_icon(n)))

    def _card(self, nodes: list[UINode], app: AppInfo) -> UINode | None:
        """The second app's card in the split picker: its title, or else a snapshot named after it; never the
        icon above it, which opens the card's menu instead of choosing it."""
        label = app.label.lower()
        return (self._find(nodes, lambda n: n.text.strip().lower() == label)
                or self._find(nodes, lambda n: n.desc.strip().lower() == label and not _is_icon(n)))

    # ------------------------------------------------------------ the two parts

    async def _run_parts(self, top: AppInfo, bottom: AppInfo) -> tuple[Outcome, str, str]:
        run, goals = self.parent, self.recommendation.goals
        focus = SplitFocus()
        upper = WindowPhone(self.phone, top.package, bottom.package, focus, top.label)
        lower = WindowPhone(self.phone, bottom.package, top.package, focus, bottom.label)
        xml = await self.phone.dump_hierarchy()
        for window in (upper, lower):
            await asyncio.to_thread(window._restrict, xml)        # which half is which, for the part's text
        goal_top = goals[0] or f"Do the part of the task that happens in {top.label}"
        goal_bottom = goals[1] or f"Do the part of the task that happens in {bottom.label}"
        note = Memory(task=getattr(run, "task", ""))
        note.facts = list(run.memory.facts)       # what the run noted before the split
        budget = run.settings.max_steps - run.iteration
        counter = StepCounter(run.iteration)
        loops = [WindowAgentLoop(run, upper, part_task(run.task, goal_top, upper, lower, goal_bottom), note, budget,
                                 counter),
                 WindowAgentLoop(run, lower, part_task(run.task, goal_bottom, lower, upper, goal_top), note, budget,
                                 counter)]
        tasks = [asyncio.ensure_future(loop.run_part()) for loop in loops]
        outcomes: dict[int, tuple[Outcome, str, str]] = {}
        try:
            pending = set(tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    outcomes[tasks.index(task)] = task.result()
                if any(o[0] != "success" for o in outcomes.values()):
                    break       # the user's task needs both parts: the other one stops here
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            run.iteration = counter.value
            run.memory.facts = list(note.facts)
        labels = (top.label, bottom.label)
        failed = [(labels[i], o) for i, o in sorted(outcomes.items()) if o[0] != "success"]
        if failed:
            label, (outcome, reason, _) = failed[0]
            return outcome, f"in {label}: {reason}", ""
        # A question is answered in the half that shows the value; both halves' answers when both gave one.
        answer = "; ".join(o[2] for _, o in sorted(outcomes.items()) if o[2])
        return "success", "; ".join(f"{labels[i]}: {o[1]}" for i, o in sorted(outcomes.items())), answer


def _overview(nodes: list[UINode]) -> UINode | None:
    """A card of Recents (Launcher3's TaskView thumbnail, ``snapshot``): Overview is showing."""
    return next((n for n in nodes if n.resource_id.endswith("/snapshot") or n.resource_id == "snapshot"), None)


def _is_icon(node: UINode) -> bool:
    return node.resource_id.endswith("/icon") or node.resource_id == "icon"
