"""Loop guards: the ways an agent gets stuck, each noticed from what the screens and actions were.

Each guard speaks only about actions that made no progress, and only while that lasts: scrolling a list that
shows new items every time, typing three digits on a keypad, or changing three controls on one settings page
is progress, not a loop; a warning that was true two steps ago is not repeated once the agent has moved on.

* stagnation — the same screen (layout *and* content) keeps coming back: the spec's layout hash, joined with
  the content fingerprint so that edits on one page are not mistaken for standing still;
* unchanged — nothing at all changed (element list or picture) for several steps in a row;
* screen signature — the native-loop design's quick check (package, element count, first control) over the
  last four actions, toggling between two states included;
* ineffective action — the last step changed neither the element list nor the picture;
* same-element loop — the agent keeps acting on one element and it keeps doing nothing;
* A-B-A cycle — a round trip screen A → B → A that the agent already made once before, with nothing changed
  on the way: the first trip may have gathered information (a note read, a number copied); a second, identical
  one is a loop, and the action that came back is blocked at B.

Plain bookkeeping, no I/O: the reviewer feeds it one transition per plan and reads its verdicts.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import Step

__all__ = ["LoopGuards", "Transition"]

STAGNATION_WINDOW = 10
STAGNATION_REPEATS = 3
UNCHANGED_LIMIT = 4          # the spec's "element map unchanged 4x" → a recovery suggestion
SIGNATURE_WINDOW = 4
SAME_ELEMENT_WINDOW = 6
SAME_ELEMENT_LIMIT = 3


@dataclass(frozen=True)
class Transition:
    before: str                  # semantic fingerprint before the plan's actions
    after: str                   # ... and after
    steps: tuple[Step, ...]      # what ran in between
    targets: tuple[str, ...]     # labels of the elements acted on ("" for none), as they were when acted on
    effective: bool = True       # the element list or the picture changed

    def keys(self) -> tuple[str, ...]:
        return tuple(s.key() for s in self.steps)


@dataclass
class LoopGuards:
    # (layout hash, content fingerprint, first time this content was seen) of the last screens
    screens: deque[tuple[str, str, bool]] = field(default_factory=lambda: deque(maxlen=STAGNATION_WINDOW))
    transitions: list[Transition] = field(default_factory=list)
    blocked: dict[str, set[str]] = field(default_factory=dict)   # fingerprint → step keys blocked there
    round_trips: Counter[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=Counter)
    unchanged: int = 0
    signatures: deque[str] = field(default_factory=lambda: deque(maxlen=SIGNATURE_WINDOW))
    fingerprints: deque[str] = field(default_factory=lambda: deque(maxlen=SIGNATURE_WINDOW))
    seen: set[str] = field(default_factory=set)                  # every screen content met in this run
    drawn_changes: int = 0       # looks whose picture changed while the element list did not

    # ------------------------------------------------------------ feeding

    def observe(self, observation: Observation, nothing_changed: bool, acted: bool = True) -> bool:
        """Every new screen, before the model is asked about it. ``nothing_changed``: neither the element list
        nor the picture changed since the last look; ``acted``: the agent did something since then (a step that
        failed before reaching the phone cannot be stuck on the phone). Returns whether this screen's content is
        new in this run (the coordinator's measure of progress)."""
        novel = observation.fingerprint not in self.seen
        self.seen.add(observation.fingerprint)
        # The picture changed under an unchanged element list: a canvas, a game board, a drawn web page moved
        # on. That is not the same screen again, whatever the dump says.
        drawn = (acted and not nothing_changed and bool(self.fingerprints)
                 and self.fingerprints[-1] == observation.fingerprint)
        if acted:
            self.drawn_changes += drawn
            self.screens.append((observation.layout_hash, observation.fingerprint, novel or drawn))
            self.signatures.append(f"{observation.signature}~{self.drawn_changes}")
            self.fingerprints.append(observation.fingerprint)
        self.unchanged = self.unchanged + 1 if nothing_changed and acted else 0
        return novel

    def record(self, transition: Transition) -> str | None:
        """One plan's effect. Returns a note when it repeated an A-B-A round trip (and blocks its action)."""
        self.transitions.append(transition)
        if len(self.transitions) < 2:
            return None
        first, second = self.transitions[-2], transition
        if not (first.after == second.before and second.after == first.before and first.before != first.after
                and second.steps and first.keys() != second.keys()):
            return None
        trip = (first.before, first.after, first.keys(), second.keys())
        self.round_trips[trip] += 1
        if self.round_trips[trip] < 2:
            return None            # the first trip may have been for information: no loop yet
        key = second.steps[-1].key()
        self.blocked.setdefault(second.before, set()).add(key)
        return (f"Cycle: you went '{' → '.join(s.describe() for s in first.steps)}' and came straight back with "
                f"'{key}' twice, with nothing changed. '{key}' is blocked on that screen; do something else there.")

    # ------------------------------------------------------------ verdicts

    def blocked_reason(self, fingerprint: str, step: Step) -> str | None:
        if step.key() in self.blocked.get(fingerprint, set()):
            return (f"'{step.describe()}' is blocked here: it led back to the previous screen twice with nothing "
                    "changed (A-B-A cycle). Choose a different action.")
        return None

    def stagnant(self) -> str | None:
        """The same screen — structure and content — seen STAGNATION_REPEATS times in the last window, with no
        screen new to this run in between (coming back to a hub page between goals is not standing still)."""
        if not self.screens:
            return None
        current = self.screens[-1][:2]
        visits = [i for i, (layout, content, _) in enumerate(self.screens) if (layout, content) == current]
        repeats = len(visits)
        explored = len(visits) > 1 and any(novel for _, _, novel in list(self.screens)[visits[-2] + 1:])
        if repeats >= STAGNATION_REPEATS and not explored:
            return (f"Screen stagnant: this exact screen was seen {repeats} times in the last {len(self.screens)} "
                    "steps")
        return None

    def stuck(self) -> bool:
        """Nothing changed, in the element list or the picture, after UNCHANGED_LIMIT steps in a row."""
        return self.unchanged >= UNCHANGED_LIMIT

    def same_signature(self) -> bool:
        """The native-loop design's screen-hash check, over the last 4 actions: the same package, element count
        and first control every time, and either one content throughout or two that the screen went back and
        forth between — toggling between two states counts as stuck; a list whose page text changes every step,
        or a field whose value was changed once (a changed value is a change), does not."""
        full = len(self.signatures) == SIGNATURE_WINDOW
        if not full or len(set(self.signatures)) != 1 or len(set(self.fingerprints)) > 2:
            return False
        runs = [fp for i, fp in enumerate(self.fingerprints) if i == 0 or self.fingerprints[i - 1] != fp]
        return len(runs) == 1 or len(runs) > len(set(runs))   # unchanged, or came back to a content it left

    def ineffective(self) -> Transition | None:
        """The last plan, when it changed nothing at all (neither the element list nor the picture)."""
        last = self.transitions[-1] if self.transitions else None
        if last is not None and not last.effective and any(
                s.action not in ("wait", "ask_user", "complete", "fail") for s in last.steps):
            return last
        return None

    def reset_stuck(self) -> None:
        self.unchanged = 0
        self.signatures.clear()
        self.fingerprints.clear()

    def same_element_loop(self) -> str | None:
        """One element acted on again and again without effect — said only while the latest action is one of
        them, so the note goes away as soon as the agent does something that works."""
        recent = self.transitions[-SAME_ELEMENT_WINDOW:]
        if not recent or recent[-1].effective:
            return None
        idle = Counter(t for tr in recent if not tr.effective for t in set(tr.targets) if t)
        latest = [t for t in recent[-1].targets if t]
        if not latest:
            return None
        label = max(latest, key=lambda t: idle[t])
        count = idle[label]
        if count < SAME_ELEMENT_LIMIT:
            return None
        return (f"ACTION LOOP: you acted on {label} {count} times in the last {len(recent)} steps with no visible "
                "effect. Diagnose before acting again: is it the right element (check the label and position)? Is "
                "it disabled or covered by the keyboard or a dialog? Does the list need scrolling first? Is the "
                "task already done? Try a different element, scroll, go back, or another way to reach the goal.")
