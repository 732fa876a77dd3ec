"""Loop guards: the ways an agent gets stuck, each noticed from what the screens and actions were.

* layout-hash stagnation — the same screen structure keeps coming back (CRC32 of the quantized layout);
* exact element-map diff — nothing at all changed for several steps in a row → automatic recovery;
* screen signature — the native-loop design's quick check (package, element count, first control) that
  also catches toggling between two states;
* ineffective action — the semantic fingerprint is the same before and after an action;
* same-element loop — the agent keeps acting on one element, with diagnostic suggestions;
* A-B-A cycle — screen A → B → A again: the action that led back from B is blocked at B.

Plain bookkeeping, no I/O: the orchestrator feeds it one transition per step and reads its verdicts.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from relay_desktop.agent.actions import Step
from relay_desktop.agent.observation import Observation

__all__ = ["LoopGuards", "Transition"]

STAGNATION_WINDOW = 10
STAGNATION_REPEATS = 3
UNCHANGED_LIMIT = 4          # the spec's "element map unchanged 4x" → automatic recovery
SIGNATURE_WINDOW = 4
SAME_ELEMENT_WINDOW = 6
SAME_ELEMENT_LIMIT = 3


@dataclass(frozen=True)
class Transition:
    before: str                  # semantic fingerprint before the step's actions
    after: str                   # ... and after
    steps: tuple[Step, ...]      # what ran in between
    targets: tuple[str, ...]     # labels of the elements acted on ("" for none)


@dataclass
class LoopGuards:
    layouts: deque[str] = field(default_factory=lambda: deque(maxlen=STAGNATION_WINDOW))
    transitions: list[Transition] = field(default_factory=list)
    blocked: dict[str, set[str]] = field(default_factory=dict)   # fingerprint → step keys blocked there
    unchanged: int = 0
    signatures: deque[str] = field(default_factory=lambda: deque(maxlen=SIGNATURE_WINDOW))
    fingerprints: deque[str] = field(default_factory=lambda: deque(maxlen=SIGNATURE_WINDOW))

    # ------------------------------------------------------------ feeding

    def observe(self, observation: Observation, map_unchanged: bool, acted: bool = True) -> None:
        """Every new screen, before the model is asked about it. ``acted``: the agent did something since the
        last screen (a step that failed before reaching the phone cannot be stuck on the phone)."""
        self.layouts.append(observation.layout_hash)
        if acted:
            self.signatures.append(observation.signature)
            self.fingerprints.append(observation.fingerprint)
        self.unchanged = self.unchanged + 1 if map_unchanged and acted else 0

    def record(self, transition: Transition) -> str | None:
        """One step's effect. Returns a note when this closed an A-B-A cycle (and blocks its action)."""
        self.transitions.append(transition)
        if len(self.transitions) < 2:
            return None
        first, second = self.transitions[-2], transition
        if first.after == second.before and second.after == first.before and first.before != first.after \
                and second.steps and [s.key() for s in first.steps] != [s.key() for s in second.steps]:
            key = second.steps[-1].key()
            self.blocked.setdefault(second.before, set()).add(key)
            return (f"Cycle: '{' → '.join(s.describe() for s in first.steps)}' went forward and "
                    f"'{key}' came straight back. '{key}' is blocked on that screen; try something else there.")
        return None

    # ------------------------------------------------------------ verdicts

    def blocked_reason(self, fingerprint: str, step: Step) -> str | None:
        if step.key() in self.blocked.get(fingerprint, set()):
            return (f"'{step.describe()}' is blocked here: it led back to the previous screen before "
                    f"(A-B-A cycle). Choose a different action.")
        return None

    def stagnant(self) -> str | None:
        """The spec's structure-hash check: the current layout seen 3+ times in the last 10 steps."""
        if not self.layouts:
            return None
        repeats = Counter(self.layouts)[self.layouts[-1]]
        if repeats >= STAGNATION_REPEATS:
            return (f"Screen structure stagnant: same layout seen {repeats} times in last "
                    f"{len(self.layouts)} iterations")
        return None

    def stuck(self) -> bool:
        """Exact element-map diff: nothing changed after UNCHANGED_LIMIT steps in a row."""
        return self.unchanged >= UNCHANGED_LIMIT

    def same_signature(self) -> bool:
        """The native-loop design's screen-hash check, over the last 4 actions: the same package, element count
        and first control every time, and at most two distinct contents — toggling between two states counts
        as stuck, a list whose page text changes every step does not."""
        full = len(self.signatures) == SIGNATURE_WINDOW
        return full and len(set(self.signatures)) == 1 and len(set(self.fingerprints)) <= 2

    def ineffective(self) -> Transition | None:
        """The last step, when it changed nothing the fingerprint sees."""
        last = self.transitions[-1] if self.transitions else None
        if last is not None and last.before == last.after and any(
                s.action not in ("wait", "ask_user", "complete", "fail") for s in last.steps):
            return last
        return None

    def reset_stuck(self) -> None:
        self.unchanged = 0
        self.signatures.clear()
        self.fingerprints.clear()

    def same_element_loop(self) -> str | None:
        """Action-history context: one element acted on again and again, with what to try instead."""
        recent = self.transitions[-SAME_ELEMENT_WINDOW:]
        targets = Counter(t for tr in recent for t in tr.targets if t)
        if not targets:
            return None
        label, count = targets.most_common(1)[0]
        if count < SAME_ELEMENT_LIMIT:
            return None
        changed = sum(1 for tr in recent if label in tr.targets and tr.before != tr.after)
        hint = ("it had no visible effect" if changed == 0 else
                f"it changed the screen only {changed} of {count} times")
        return (f"ACTION LOOP: you acted on \"{label}\" {count} times in the last {len(recent)} steps and {hint}. "
                "Diagnose before acting again: is it the right element (check the label and position)? Is it "
                "disabled or covered by the keyboard or a dialog? Does the list need scrolling first? Is the "
                "task already done? Try a different element, scroll, go back, or another way to reach the goal.")
