"""The rule-based fallback planner: drives the phone when no model is configured or every provider failed.

It follows the native loop's recipe — open the app the task names, tap search, type the query, submit, pick
the first result, go back when stuck — plus what simple tasks need to actually finish: close pop-ups the task
is not about, flip a named switch to the wanted state, set a slider to a percentage, type and send a quoted
message in the named person's conversation, tap the Nth of a list, and confirm an action (delete, add) the
task literally asks for. Each call returns one step and says, in plain words, which rule chose it.

It is deliberately timid: it never pays, buys or installs, never taps delete/send/share/call unless the task
says so, never claims a part of the task it did not understand is done, and gives up (with a reason that
points to configuring a model) after a few fruitless backs or :data:`MAX_PLANS` steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from relay_desktop.agent.fallback.rules import DESTRUCTIVE, EFFECT_VERBS, Slider, choose_app, read_task, tokens
from relay_desktop.agent.fallback.screen import (
    dismiss_button,
    element_words,
    eligible,
    find_switch,
    first_result,
    is_title,
    message_field,
    on_top,
    ordinal_pick,
    overflow_button,
    screen_key,
    search_box,
    sensitive,
    shown_words,
    switch_state,
)
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import SemanticActionPlan, Step
from relay_desktop.device.models import AppInfo
from relay_desktop.perception import Dialog, Element, current_dialog
from relay_desktop.perception.labels import slider_reading

__all__ = ["MAX_BACKS", "MAX_PLANS", "FallbackPlanner"]

MAX_PLANS = 15          # its own steps without finishing, then it gives up
MAX_BACKS = 3           # backs in a row that led nowhere new
STUCK_AFTER = 2         # steps in a row that left the screen as it was
MAX_LAUNCHES = 2        # the first open, and one more after backing out of it or losing it
MAX_SCROLLS = 8         # per screen, looking for what the task names
MAX_SLIDER_TAPS = 2     # on one slider that does not read the wanted position
SLIDER_TOLERANCE = 10   # percentage points: a tap lands within the track's padding of the wanted spot
GIVE_UP = "the fallback planner could not find how to do this; configure a model in Settings"

Decision = tuple[Step, str]


def _position(bar: Element) -> float | None:
    """Where a slider stands, in percent of its range; None when the screen does not say."""
    low, high, current = slider_reading(bar.node)
    if low is None or high is None or current is None or high <= low:
        return None
    return 100 * (current - low) / (high - low)


_PAST = {"add": "added", "delete": "deleted", "remove": "removed", "send": "sent", "create": "created",
         "save": "saved", "share": "shared", "call": "called"}


class FallbackPlanner:
    def __init__(self, task: str, apps: Sequence[AppInfo]) -> None:
        self.task = " ".join(task.split())
        self.app = choose_app(self.task, apps)
        self.named_app = self.app is not None and self.app.label.split()[0] in self.task
        self.intent = read_task(self.task, apps)
        self._plans = 0
        self._last_step: Step | None = None
        self._last_fp: str | None = None
        self._last_key: tuple[str, ...] = ()
        self._unchanged = 0
        self._backs = 0
        self._seen: set[str] = set()
        self._tapped: dict[tuple[str, ...], set[str]] = {}
        self._scrolls: Counter[tuple[str, ...]] = Counter()
        self._scroll_end: set[tuple[str, ...]] = set()
        self._launches: Counter[str] = Counter()
        self._slid: Counter[int] = Counter()         # taps on each slider of the task
        self._slid_from: dict[int, float | None] = {}  # its value before the last tap
        self._done: set[str] = set()                 # goals reached: "toggle0", "slider0", "search", ...
        self._pending: set[str] = set()              # flags that hold once the step that set them succeeded
        self._result_fp: str | None = None           # screen on which the first search result was tapped
        self._sent_fp: str | None = None             # screen on which Send was tapped
        self._acted: tuple[str, str] | None = None   # (verb, screen) of the last delete/add/... tap
        self._notes: list[str] = []                  # what was achieved, for the completion summary

    # ------------------------------------------------------------ the one entry point

    def plan(self, observation: Observation, last_ok: bool | None = None) -> SemanticActionPlan:
        reflection = self._observe(observation, last_ok)
        step, thinking = self._decide(observation)
        self._plans += 1
        self._last_step, self._last_fp = step, observation.fingerprint
        self._last_key = screen_key(observation)
        return SemanticActionPlan((step,), thinking, reflection, source="fallback")

    def _observe(self, obs: Observation, last_ok: bool | None) -> str:
        """Book-keeping on the new screen: did the last step change anything, and is that progress?"""
        if last_ok is not False:
            self._add_done(self._pending)
        self._pending = set()
        if self._last_step is None:
            self._seen.add(obs.fingerprint)
            return ""
        changed = obs.fingerprint != self._last_fp
        if changed:
            self._unchanged = 0
            if obs.fingerprint not in self._seen and self._last_step.action != "back":
                self._backs = 0
        elif self._last_step.action == "scroll":
            # The list did not move: its end is reached, which is an answer rather than a failure.
            self._scroll_end.add(self._last_key)
        else:
            self._unchanged += 1
        self._seen.add(obs.fingerprint)
        outcome = "failed" if last_ok is False else "changed the screen" if changed else "left the screen as it was"
        return f"The last step ({self._last_step.describe()}) {outcome}."

    def _add_done(self, goals: set[str]) -> None:
        if goals - self._done:
            self._backs = 0
        self._done |= goals

    # ------------------------------------------------------------ rules, in order

    def _decide(self, obs: Observation) -> Decision:
        intent = self.intent
        if intent.refused:
            return Step.of("fail", reason=intent.refused), "Rule: the task asks for something this planner never does"
        if intent.leftover and not intent.has_goal:
            # Nothing in the task is something a rule can finish: wandering around would only tap at random.
            return Step.of("fail", reason=self._needs_model()), "Rule: no part of this task is a goal a rule can check"
        if self._plans >= MAX_PLANS:
            return (Step.of("fail", reason=f"{MAX_PLANS} steps without finishing; {GIVE_UP}"),
                    f"Rule: give up after {MAX_PLANS} steps without finishing")
        dialog = current_dialog(obs.element_map)
        self._check_goals(obs, dialog)
        finished = self._finished(obs)
        if finished is not None:
            return finished
        in_app = self.app is None or obs.app == self.app.package
        # Outside the app, opening it is the way forward; backing out of the home screen would do nothing.
        if self._unchanged >= STUCK_AFTER and in_app:
            return self._back(f"the screen did not change after the last {STUCK_AFTER} steps")
        if dialog is not None and dialog.buttons:
            return self._dialog_rule(obs, dialog)
        for rule in (self._app_rule, self._toggle_rule, self._slider_rule, self._search_rule, self._message_rule,
                     self._ordinal_rule, self._navigate):
            decision = rule(obs)
            if decision is not None:
                return decision
        return self._back("nothing on this screen matches the task")

    def _finished(self, obs: Observation) -> Decision | None:
        intent = self.intent
        goals = {f"toggle{i}" for i in range(len(intent.toggles))} | {f"slider{i}" for i in range(len(intent.sliders))}
        goals |= {name for name, wanted in (("search", intent.query), ("message", intent.message),
                                             ("open", intent.open_target)) if wanted}
        if (intent.action or intent.ordinal) and not intent.message:
            goals.add("action")
        in_app = self.app is None or obs.app == self.app.package
        if not goals:
            # "Open Chrome": nothing but the app, so being in it is the whole task.
            if self.app is None or not in_app or intent.words or intent.leftover:
                return None
            if not self._notes:
                self._notes.append(f"{self.app.label} is open")
        elif not goals <= self._done:
            return None
        if intent.leftover:
            return (Step.of("fail", reason=self._needs_model()),
                    "Rule: the parts this planner can check are done; the rest needs a model")
        summary = "; ".join(self._notes) or f"done: {self.task}"
        return Step.of("complete", summary=summary[:1].upper() + summary[1:]), "Rule: every goal of the task is reached"

    def _check_goals(self, obs: Observation, dialog: Dialog | None) -> None:
        """Mark goals whose effect this screen shows."""
        intent, emap = self.intent, obs.element_map
        for i, toggle in enumerate(intent.toggles):
            element = find_switch(obs.element_map, toggle.words)
            if f"toggle{i}" not in self._done and element is not None and switch_state(element) == toggle.want:
                self._add_done({f"toggle{i}"})
                self._notes.append(f"{self._as_written(toggle.name)} is {toggle.want}")
        for i, slider in enumerate(intent.sliders):
            bar = self._slider(obs, slider)
            if f"slider{i}" in self._done or bar is None:
                continue
            position, value = _position(bar), slider_reading(bar.node)[2]
            # Done when the slider reads the wanted position, not when a tap on it went through; a slider that
            # shows its value but not its range is done once the tap moved it.
            moved = position is None and i in self._slid_from and value not in (None, self._slid_from[i])
            if moved or (position is not None and abs(position - slider.percent) <= SLIDER_TOLERANCE):
                self._add_done({f"slider{i}"})
                self._notes.append(f"{' '.join(slider.words)} set to {slider.percent}%")
        if self._result_fp is not None and obs.fingerprint != self._result_fp and "search" not in self._done:
            self._add_done({"search"})
        if self._sent_fp is not None and obs.fingerprint != self._sent_fp and "message" not in self._done:
            self._add_done({"message"})
            self._notes.append(f'sent "{intent.message}"')
        in_app = self.app is None or obs.app == self.app.package
        title = next((e for e in emap.elements if is_title(e, intent.open_target)), None)
        if title is not None and "open" not in self._done and in_app:
            self._add_done({"open"})
            # "Show me which Android version…": quote the line that answers, so the user need not look.
            facts = [e.label for e in emap.elements if not e.interactive and on_top(e) and e is not title
                     and len(set(tokens(e.label)) & intent.words) >= 2]
            self._notes.append(f"{title.label} is open" + (f"; it shows {facts[0]}" if facts else ""))
        if self._acted is not None and "action" not in self._done and dialog is None:
            verb, screen = self._acted
            gone = not (intent.entities and intent.entities <= shown_words(emap))
            if obs.fingerprint != screen and (verb not in DESTRUCTIVE or gone):
                self._add_done({"action"})
                names = [w.strip("'\".,") for w in self.task.split() if set(tokens(w)) & intent.entities]
                what = " ".join(names) or (f"item {intent.ordinal}" if intent.ordinal else "it")
                self._notes.append(f"{_PAST.get(verb, verb)} {what}")

    def _dialog_rule(self, obs: Observation, dialog: Dialog) -> Decision:
        intent = self.intent
        buttons = [b for b in dialog.buttons if eligible(b)]
        said = set(tokens(f"{dialog.title or ''} {dialog.message}")) | {w for b in buttons for w in element_words(b)}
        wants_closed = any(word in self.task.casefold() for word in ("pop-up", "popup", "dialog", "promo"))
        if said & (intent.words | intent.entities) and not (wants_closed and "dismissed" not in self._done):
            pick = self._best(obs, [b for b in buttons if not sensitive(b, intent)])
            if pick is not None:
                return self._tap(obs, pick, f"Rule: the pop-up is part of the task; tap '{pick.name}'")
        button = dismiss_button(buttons)
        self._done.add("dismissed")
        if button is None:
            return Step.of("back"), "Rule: close the pop-up the task is not about (it has no closing button: back)"
        return self._tap(obs, button, f"Rule: close the pop-up the task is not about (tap '{button.name}')")

    def _app_rule(self, obs: Observation) -> Decision | None:
        app = self.app
        if app is None or obs.app == app.package:
            return None
        if self._launches[app.package] >= MAX_LAUNCHES:
            return (Step.of("fail", reason=f"opened {app.label} {MAX_LAUNCHES} times without getting anywhere; "
                                           f"{GIVE_UP}"),
                    f"Rule: give up after opening {app.label} {MAX_LAUNCHES} times")
        self._launches[app.package] += 1
        how = "names" if self.named_app else "needs"
        return Step.of("launch_app", app=app.label), f"Rule: open the app the task {how} ({app.label})"

    def _toggle_rule(self, obs: Observation) -> Decision | None:
        for i, toggle in enumerate(self.intent.toggles):
            if f"toggle{i}" in self._done:
                continue
            element = find_switch(obs.element_map, toggle.words)
            if element is None:
                return None          # not on this screen: navigate towards it
            return self._tap(obs, element, f"Rule: '{element.name}' is {switch_state(element)}; tap it to turn "
                                           f"it {toggle.want}")
        return None

    def _slider_rule(self, obs: Observation) -> Decision | None:
        for i, slider in enumerate(self.intent.sliders):
            if f"slider{i}" in self._done:
                continue
            bar = self._slider(obs, slider)
            if bar is None:
                return None
            if self._slid[i] and slider_reading(bar.node)[2] is None:
                return (Step.of("fail", reason=f"tapped the '{bar.name}' slider at {slider.percent}%, but the phone "
                                               "does not report its position, so that is not checked; "
                                               "configure a model in Settings"),
                        "Rule: never claim a slider position the screen does not show")
            if self._slid[i] >= MAX_SLIDER_TAPS:
                return (Step.of("fail", reason=f"the '{bar.name}' slider did not reach {slider.percent}% after "
                                               f"{MAX_SLIDER_TAPS} taps; {GIVE_UP}"),
                        f"Rule: give up after tapping the slider {MAX_SLIDER_TAPS} times")
            self._slid[i] += 1
            self._slid_from[i] = slider_reading(bar.node)[2]
            box = bar.visible
            x = max(box.left + 1, min(box.right - 1, box.left + round(box.width * slider.percent / 100)))
            return (Step.of("tap", x=int(x), y=int(bar.tap[1])),
                    f"Rule: tap the '{bar.name}' slider at {slider.percent}% of its width")
        return None

    def _search_rule(self, obs: Observation) -> Decision | None:
        query = self.intent.query
        if not query or "search" in self._done or self._result_fp is not None:
            return None
        field, button = search_box(obs.element_map)
        if "typed" not in self._done:
            if field is not None:
                self._pending.add("typed")
                clear = bool(field.value) and field.value != query
                return (Step.of("type", element=field.id, text=query, clear=clear, submit=True),
                        f"Rule: type the search query into '{field.name}' and submit it")
            if button is not None and self._key(button) not in self._tapped_here(obs):
                return self._tap(obs, button, f"Rule: tap '{button.name}' to open the search box")
            return None
        # Results belong to the search just made: right after typing, or while the box still shows the query
        # (after backing out to a plain list, its first item is no result).
        fresh = self._last_step is not None and self._last_step.action == "type"
        if not fresh and (field is None or not set(tokens(query)) <= set(tokens(field.value))):
            return None
        result = first_result(obs.element_map, field)
        if result is None or self._key(result) in self._tapped_here(obs):
            return None
        self._result_fp = obs.fingerprint
        self._notes.append(f'searched for "{query}" and opened the first result ({result.label.split(" · ")[0]})')
        return self._tap(obs, result, f"Rule: open the first search result ('{result.name}')")

    def _message_rule(self, obs: Observation) -> Decision | None:
        text = self.intent.message
        if not text or "message" in self._done or self._sent_fp is not None:
            return None
        field = message_field(obs.element_map)
        # Only in the conversation of the person the task names: a wrong chat must never get the text.
        who = set(self.intent.entities) - set(tokens(text))
        header = obs.element_map.screen.height * 0.25
        heading = set().union(*(element_words(e) for e in obs.element_map.elements
                                if not e.interactive and on_top(e) and e.bounds.top < header))
        if field is None or not who or not who <= heading:
            return None
        if " ".join(field.value.split()) != text:
            return (Step.of("type", element=field.id, text=text, clear=bool(field.value)),
                    f"Rule: type the message into '{field.name}'")
        send = next((e for e in obs.element_map.elements if eligible(e) and "send" in element_words(e)), None)
        if send is None:
            return None
        self._sent_fp = obs.fingerprint
        return self._tap(obs, send, f"Rule: the message is typed; tap '{send.name}'")

    def _ordinal_rule(self, obs: Observation) -> Decision | None:
        if not self.intent.ordinal or "action" in self._done or self._acted is not None:
            return None
        pick = ordinal_pick(obs.element_map, self.intent)
        if pick is None or sensitive(pick, self.intent):
            return None
        return self._tap(obs, pick, f"Rule: tap item number {self.intent.ordinal} of the list ('{pick.name}')")

    def _navigate(self, obs: Observation) -> Decision | None:
        intent, emap = self.intent, obs.element_map
        tapped = self._tapped_here(obs)
        pool = [e for e in emap.elements if eligible(e) and not sensitive(e, intent) and self._key(e) not in tapped]
        scored = [e for e in pool if element_words(e) & intent.words]
        if intent.entities:
            named = [e for e in scored if element_words(e) & intent.entities]
            if named:
                pick = self._best(obs, named)
                assert pick is not None
                return self._tap(obs, pick, f"Rule: tap what the task names ('{pick.name}')")
            if not intent.entities & shown_words(emap):
                scroll = self._scroll(obs)
                if scroll is not None:
                    return scroll
                # What the task names is not here: acting (add, delete) on something else would be wrong.
                scored = [e for e in scored if not element_words(e) & intent.verbs & EFFECT_VERBS]
        pick = self._best(obs, scored)
        if pick is not None:
            return self._tap(obs, pick, f"Rule: tap the element that best matches the task ('{pick.name}')")
        wanted = intent.verbs & EFFECT_VERBS
        menu = overflow_button(emap)
        if wanted and menu is not None and self._key(menu) not in tapped:
            return self._tap(obs, menu, f"Rule: look for '{sorted(wanted)[0]}' in the '{menu.name}' menu")
        return None

    # ------------------------------------------------------------ helpers

    def _best(self, obs: Observation, candidates: list[Element]) -> Element | None:
        """Highest word-match score, words that many elements share counting less; ties go to the top-most."""
        counts = Counter(w for e in obs.element_map.elements if eligible(e) for w in element_words(e))
        wanted = self.intent.words | self.intent.entities

        def score(element: Element) -> float:
            return sum(1 / max(1, counts[w]) for w in element_words(element) & wanted)

        ranked = [(score(e), -e.bounds.top, -e.bounds.left, i, e) for i, e in enumerate(candidates)]
        ranked = [r for r in ranked if r[0] > 0]
        return max(ranked)[4] if ranked else None

    @staticmethod
    def _slider(obs: Observation, slider: Slider) -> Element | None:
        return next((e for e in obs.element_map.elements if e.role == "slider" and on_top(e)
                     and set(slider.words) <= element_words(e)), None)

    def _scroll(self, obs: Observation) -> Decision | None:
        key = screen_key(obs)
        if key in self._scroll_end or self._scrolls[key] >= MAX_SCROLLS:
            return None
        lists = [e for e in obs.element_map.elements if e.role in ("scroll", "web") and on_top(e) and e.interactive]
        if not lists:
            return None
        self._scrolls[key] += 1
        target = max(lists, key=lambda e: e.bounds.area)
        return (Step.of("scroll", direction="down", element=target.id),
                "Rule: what the task names is not on screen; scroll down to look for it")

    def _tap(self, obs: Observation, element: Element, thinking: str) -> Decision:
        self._tapped_here(obs).add(self._key(element))
        verbs = element_words(element) & self.intent.verbs & EFFECT_VERBS
        if verbs:
            self._acted = (sorted(verbs)[0], obs.fingerprint)
        return Step.of("tap", element=element.id), thinking

    def _back(self, why: str) -> Decision:
        if self._backs >= MAX_BACKS:
            return (Step.of("fail", reason=GIVE_UP),
                    f"Rule: {why}, and {MAX_BACKS} backs in a row led nowhere new; give up")
        self._backs += 1
        return Step.of("back"), f"Rule: {why}; go back"

    def _needs_model(self) -> str:
        """Why the run ends short of done: the first part no rule can reach and check, and what was done."""
        parts = self.intent.leftover
        more = f" (and {len(parts) - 1} more part{'s' if len(parts) > 2 else ''})" if len(parts) > 1 else ""
        done = f"; done so far: {'; '.join(self._notes)}" if self._notes else ""
        return (f"this part needs a model: '{parts[0]}'{more}{done}; the fallback planner does not claim it is "
                "done; configure a model in Settings")

    def _as_written(self, phrase: str) -> str:
        """A phrase of the task with the user's own capitals ("Wi-Fi", not "wi-fi")."""
        start = self.task.casefold().find(phrase.casefold())
        return self.task[start:start + len(phrase)] if start >= 0 else phrase

    @staticmethod
    def _key(element: Element) -> str:
        return f"{element.role}:{element.label or element.node.resource_id}"

    def _tapped_here(self, obs: Observation) -> set[str]:
        return self._tapped.setdefault(screen_key(obs), set())
