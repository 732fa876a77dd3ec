"""Task suite plumbing: a task is a goal, an initial state, a success checker and an oracle.

The checker reads the phone's *state* (not its screen), so it cannot be fooled by what an agent sees. A task
that asks a question (``expected_answer``) is solved by the right answer with the phone left as it was.
The oracle is a scripted solution that uses only what any agent has — the hierarchy dump and input
events — through a :class:`Driver`, so it runs unchanged in-process or through adb and proves the task
is solvable by the same means.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from relay_desktop.sim.tasks.answer_match import answers_match

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

KEY_HOME, KEY_BACK, KEY_ENTER, KEY_DEL = 3, 4, 66, 67


class Driver(Protocol):
    async def dump_hierarchy(self) -> str: ...
    async def tap(self, x: int, y: int) -> None: ...
    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...
    async def type_text(self, text: str) -> None: ...
    async def press_key(self, code: int) -> None: ...
    async def launch_app(self, package: str) -> None: ...


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class Task:
    id: str
    goal: str                                        # what a user would type
    setup: Callable[[VirtualPhone], None]            # puts the phone in the task's initial state
    check: Callable[[VirtualPhone], CheckResult]     # reads the phone's state
    # A scripted solution; a question task's oracle returns the answer it read off the screen.
    oracle: Callable[[Driver], Awaitable[str | None]]
    apps: tuple[str, ...] = ()
    tags: tuple[str, ...] = field(default_factory=tuple)
    max_steps: int = 20
    # What a user answers, in order, when the agent asks (ask_user); the bench plays the user with these.
    answers: tuple[str, ...] = ()
    must_ask: bool = False         # ambiguous on purpose: solved only if the agent asked before acting
    # The outcome a correct run ends with: "failed" for an infeasible task (the agent must stop with fail,
    # and the checker then proves the phone's state is unchanged).
    expected_outcome: str = "success"
    # Secrets the task's user has saved (name → value), as `relay-desktop secrets set` would: the bench gives
    # them to the agent as RELAY_SECRET_<NAME>; the goal names them, never their values.
    secrets: tuple[tuple[str, str], ...] = ()
    # A question ("How many unread texts do I have?"): the value the agent must give as complete's answer,
    # compared by meaning (answer_match: "7:30" is "07:30", "3" is "three", "$12.00" is "12"); None: no question.
    expected_answer: str | None = None

    def check_answer(self, given: str) -> CheckResult:
        """Whether ``given`` answers this task's question (every answer does when it asks none)."""
        if self.expected_answer is None:
            return CheckResult(True, "no question asked")
        if not given.strip():
            return CheckResult(False, f"no answer given; expected {self.expected_answer!r}")
        if answers_match(self.expected_answer, given):
            return CheckResult(True, f"answered {given!r} (expected {self.expected_answer!r})")
        return CheckResult(False, f"answered {given!r}, expected {self.expected_answer!r}")


class OracleError(AssertionError):
    """The oracle could not find what it expected on screen."""


def fresh_start(phone: VirtualPhone, *packages: str) -> None:
    """Close and reset the given apps and go home: every task starts from the same screen."""
    if phone.chaos is not None:
        phone.chaos.forget()          # the last task's scripted interruptions end with it
    for package in packages:
        phone.clear_data(package)
    phone.system_dialog = None        # a crash dialog left over from before is not part of any task
    phone.go_home()


def factory_reset(phone: VirtualPhone) -> None:
    """The whole phone as it left the factory: every setting (airplane mode, theme, Wi-Fi, brightness, timeouts,
    Do Not Disturb…), every app's data, the clipboard, rotation, display overrides, notifications, split screen.
    A task's setup then changes what it needs; what one task left behind never reaches the next (bench)."""
    for namespace, values in phone.factory_settings().items():
        current = phone.settings.setdefault(namespace, {})     # in place: the shell and apps hold these dicts
        current.clear()
        current.update(values)
    for namespace in set(phone.settings) - set(phone.factory_settings()):
        phone.settings[namespace].clear()
    if phone.split.active:
        phone.split.exit(phone.split.pair.first if phone.split.pair else "")
    phone.rotate(0)
    phone.size_override = phone.density_override = None
    phone.clipboard = ""
    phone.battery_level = 100
    phone.screen_on = True
    phone.notifications.clear()
    phone.notifications.shade_open = False
    phone.toast = None
    for package in list(phone.apps):
        phone.clear_data(package)
    fresh_start(phone)


def passed(detail: str = "done") -> CheckResult:
    return CheckResult(True, detail)


def failed(detail: str) -> CheckResult:
    return CheckResult(False, detail)


# ---------------------------------------------------------------- oracle helpers

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class Node:
    attrs: dict[str, str]
    bounds: tuple[int, int, int, int]

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2


def nodes(xml: str) -> list[Node]:
    """Every node of a dump in document order (later = drawn on top)."""
    found = []
    for element in ET.fromstring(xml).iter("node"):
        match = _BOUNDS.fullmatch(element.get("bounds", ""))
        if match:
            found.append(Node(dict(element.attrib), tuple(int(g) for g in match.groups())))  # type: ignore[arg-type]
    return found


def find(xml: str, *, text: str | None = None, desc: str | None = None, id: str | None = None,
         contains: str | None = None, cls: str | None = None, checkable: bool | None = None) -> Node | None:
    """The last (topmost) node matching every given attribute; ``id`` matches the part after ':id/'."""
    for node in reversed(nodes(xml)):
        a = node.attrs
        if text is not None and a.get("text") != text:
            continue
        if desc is not None and a.get("content-desc") != desc:
            continue
        if id is not None and a.get("resource-id", "").rsplit("/", 1)[-1] != id:
            continue
        label = f"{a.get('text', '')} {a.get('content-desc', '')}".lower()
        if contains is not None and contains.lower() not in label:
            continue
        if cls is not None and a.get("class") != cls:
            continue
        if checkable is not None and (a.get("checkable") == "true") != checkable:
            continue
        return node
    return None


async def tap_on(driver: Driver, **query: str) -> Node:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if node is None:
        raise OracleError(f"nothing on screen matches {query}")
    await driver.tap(*node.center)
    return node


def covered(xml: str, node: Node) -> bool:
    """Whether a clickable node drawn later (a floating button over a list's last rows) lies over ``node``'s
    centre, so a tap there would reach it instead; ``node``'s own children do not count."""
    x, y = node.center
    every = nodes(xml)
    left, top, right, bottom = node.bounds
    start = next((i for i, n in enumerate(every) if n == node), len(every))
    after = [n for n in every[start + 1:] if n.attrs.get("clickable") == "true"]   # ancestors come before it
    return any(n.bounds[0] <= x < n.bounds[2] and n.bounds[1] <= y < n.bounds[3]
               and not (left <= n.bounds[0] and top <= n.bounds[1] and n.bounds[2] <= right
                        and n.bounds[3] <= bottom) for n in after)


async def scroll_to(driver: Driver, *, max_swipes: int = 12, **query: str) -> Node:
    """Swipe up in the middle of the screen until a node matching ``query`` is fully on screen and nothing
    clickable lies over it."""
    for _ in range(max_swipes + 1):
        xml = await driver.dump_hierarchy()
        node = find(xml, **query)  # type: ignore[arg-type]
        if node is not None and node.bounds[3] - node.bounds[1] > 40 and not covered(xml, node):
            return node
        root = nodes(xml)[0].bounds
        x, bottom = (root[0] + root[2]) // 2, root[3]
        await driver.swipe(x, int(bottom * 0.7), x, int(bottom * 0.4), 400)
    raise OracleError(f"scrolled {max_swipes} times and never saw {query}")


async def type_into(driver: Driver, value: str, **query: str) -> None:
    """Tap the field matching ``query`` and type ``value``."""
    await tap_on(driver, **query)
    await driver.type_text(value)


# ---------------------------------------------------------------- in-process driver

class PhoneDriver:
    """Drives a :class:`VirtualPhone` directly (no adb), for fast task tests."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone

    async def dump_hierarchy(self) -> str:
        return await self.phone.dump_hierarchy()

    async def tap(self, x: int, y: int) -> None:
        await self.phone.tap(x, y)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        await self.phone.swipe(x1, y1, x2, y2, duration_ms)

    async def type_text(self, text: str) -> None:
        await self.phone.input_text(text)

    async def press_key(self, code: int) -> None:
        await self.phone.press_key(code)

    async def launch_app(self, package: str) -> None:
        self.phone.launch(package)


# ---------------------------------------------------------------- getting past interruptions (chaos mode)

PERMISSION_CONTROLLER, PLAY_STORE = "com.android.permissioncontroller", "com.android.vending"


def interruption(xml: str) -> tuple[str, Node, bool] | None:
    """What came up unasked on this screen, the control a careful user answers it with, and whether that is a
    swipe (a heads-up card is pushed away) rather than a tap; None when nothing did. Only what chaos mode
    brings (sim/chaos.py) is recognised, so a task's own pop-ups stay its oracle's to answer."""
    allow = find(xml, id="permission_allow_button")
    if allow is not None and allow.attrs.get("package") == PERMISSION_CONTROLLER:
        return "permission request", allow, False
    wait = find(xml, id="aerr_wait")
    if wait is not None:
        return "not responding", wait, False
    review = next((n for n in reversed(nodes(xml)) if n.attrs.get("package") == PLAY_STORE
                   and n.attrs.get("text") == "Not now"), None)
    if review is not None:
        return "review card", review, False
    got_it = find(xml, id="whats_new_got_it")
    if got_it is not None:
        return "what's new", got_it, False
    reject = find(xml, text="Reject all")
    if reject is not None and find(xml, text="We value your privacy") is not None:
        return "cookie banner", reject, False
    card = find(xml, id="heads_up_notification")
    if card is not None:
        return "heads-up", card, True
    return None


async def clear_interruptions(driver: Driver, *, limit: int = 8) -> tuple[list[str], str]:
    """Answer whatever came up unasked until nothing is left (allow a permission, wait for a hung app, push a
    heads-up away, close a review card or a "What's new" sheet, reject cookies). Returns what was cleared and
    the dump of the screen left."""
    cleared: list[str] = []
    xml = await driver.dump_hierarchy()
    for _ in range(limit):
        found = interruption(xml)
        if found is None:
            break
        name, node, swipe = found
        if swipe:
            x, y = node.center
            await driver.swipe(x, y, x, max(1, node.bounds[1] - 200), 200)
        else:
            await driver.tap(*node.center)
        cleared.append(name)
        xml = await driver.dump_hierarchy()
    return cleared, xml


class ClearingDriver:
    """A driver that gets past interruptions before each action, as a user does without thinking about it: the
    oracles run unchanged on a phone in chaos mode (``sim --demo --chaos SEED``). :attr:`cleared` lists what it
    answered; :meth:`settle` clears what the last action brought (a hang on the final Save)."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner
        self.cleared: list[str] = []
        self._acted = True        # something may have come up since the last look

    async def _clear(self) -> str:
        cleared, xml = await clear_interruptions(self.inner)
        self.cleared += cleared
        self._acted = False
        return xml

    async def settle(self) -> None:
        if self._acted:
            await self._clear()

    async def dump_hierarchy(self) -> str:
        return await self._clear()

    async def tap(self, x: int, y: int) -> None:
        await self.settle()
        await self.inner.tap(x, y)
        self._acted = True

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        await self.settle()
        await self.inner.swipe(x1, y1, x2, y2, duration_ms)
        self._acted = True

    async def type_text(self, text: str) -> None:
        await self.settle()
        await self.inner.type_text(text)
        self._acted = True

    async def press_key(self, code: int) -> None:
        await self.settle()
        await self.inner.press_key(code)
        self._acted = True

    async def launch_app(self, package: str) -> None:
        await self.inner.launch_app(package)
        self._acted = True

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)     # what else the wrapped driver offers (a mirror's paste)
