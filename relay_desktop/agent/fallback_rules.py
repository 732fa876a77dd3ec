"""What the rule-based fallback planner reads in a task and on a screen.

Words are compared after one normalisation on both sides (case, "Wi-Fi" == "wifi", "08:00" == "8:00", a plural
"s"), so a task and a label meet however either is spelled. The task is read once into a :class:`TaskIntent`:
its content words, the names it mentions, the app it needs and the goals the planner knows how to finish
(switches, sliders, a search, a message, an action such as delete or add). Nothing here touches the phone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from relay_desktop.agent.observation import LAUNCHER_HINTS, Observation
from relay_desktop.device.models import AppInfo
from relay_desktop.perception import Element, ElementMap, WindowKind

__all__ = ["DESTRUCTIVE", "EFFECT_VERBS", "Slider", "TaskIntent", "Toggle", "choose_app", "dismiss_button",
           "element_words", "eligible", "find_switch", "first_result", "is_title", "message_field", "on_top",
           "ordinal_pick", "overflow_button", "read_task", "screen_key", "search_box", "sensitive", "shown_words",
           "switch_state", "tokens"]

STOP_WORDS = frozenset((
    "a", "an", "the", "to", "of", "in", "on", "off", "at", "for", "with", "and", "or", "then", "my", "me", "i",
    "you", "your", "it", "its", "this", "that", "these", "those", "which", "what", "is", "are", "be", "was",
    "please", "can", "could", "would", "will", "should", "show", "open", "go", "app", "apps", "turn", "switch",
    "toggle", "enable", "disable", "activate", "deactivate", "set", "make", "sure", "from", "by", "up", "down",
    "into", "there", "here", "now", "just", "all", "some", "him", "her", "them", "his", "their", "our", "we", "us",
    "see", "check", "dismiss", "close", "pop", "popup", "dialog", "banner", "use", "using", "tap", "press", "click",
    "look", "if", "so", "as", "do", "does", "how", "when", "where", "who", "why", "runs", "run", "first", "result",
))
ACTION_VERBS = frozenset({"add", "delete", "remove", "send", "text", "message", "reply", "create", "save",
                          "share", "call", "start"})
# Verbs whose tap changes something (as opposed to moving around): done once their effect shows.
EFFECT_VERBS = frozenset({"add", "delete", "remove", "send", "create", "save", "share", "call"})
# An action whose effect is that its object is gone, rather than that something new exists.
DESTRUCTIVE = frozenset({"delete", "remove"})
# The fallback planner never spends money or installs software on its own, whatever the task says.
REFUSED_VERBS = frozenset({"buy", "purchase", "pay", "checkout", "order", "transfer", "donate", "subscribe",
                           "install", "uninstall"})
_SENSITIVE = re.compile(r"\b(pay|payment|purchase|buy|checkout|check out|place order|order now|transfer|donate|"
                        r"subscribe|install|uninstall|factory reset|reset|erase|sign out|log out|delete|remove|"
                        r"send|share|post|publish|submit|call)\b", re.I)
DISMISSIVE = ("no thanks", "not now", "cancel", "close", "dismiss", "maybe later", "later", "skip", "got it",
              "no", "ok")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_CONTAINERS = ("field", "scroll", "pager", "web", "switch", "toggle", "checkbox", "slider")
_TOKEN = re.compile(r"\d{1,2}:\d{2}|[a-z0-9]+")
# Single quotes only count next to a non-letter, so "Carol's phone" is not a quotation.
_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|(?<![A-Za-z])'([^']{1,200})'(?![A-Za-z])")
_MARK = "\x00"
_CLAUSES = re.compile(r"\s*(?:[,;.()]|\bthen\b|\band\b)\s*")
_TOGGLE_PATTERNS = (
    (re.compile(r"\b(?:turn|switch|toggle|set)\s+(on|off)\s+(.+)$"), 1, 2),
    (re.compile(r"\b(?:turn|switch|set)\s+(.+?)\s+(on|off)$"), 2, 1),
    (re.compile(r"\b(enable|activate|disable|deactivate)\s+(.+)$"), 1, 2),
)
_SEARCH = re.compile(r"(?i:\b(?:search(?:\s+(?:the\s+web|online|google|the\s+internet))?(?:\s+for)?|look\s+up|"
                     r"google|find))\s+(.+?)(?:\s+(?i:in|on|with|using)\s+[A-Z]\w*.*)?$")
_PERCENT = re.compile(r"(\d{1,3})\s*%")
_DISMISS = re.compile(r"\b(?:dismiss|close|skip)\b.*\b(?:pop-?up|dialog|banner|ad|promo\w*|offer)\b")
# Clauses that only say where to go or what to show: being there is all they ask.
_NAVIGATING = frozenset({"start", "go", "navigate", "show", "what", "which", "where", "how", "tell", "find",
                         "look", "search", "google"})
# Apps a task implies without naming them: (pattern on the lower-case task, labels to look for).
_KEYWORD_APPS = (
    (r"\bwi-?fi\b|\bbluetooth\b|\bbrightness\b|\bdark (?:theme|mode)\b|\bdisplay\b|\bandroid version\b|"
     r"\babout phone\b|\bairplane mode\b|\bsettings?\b", ("Settings",)),
    (r"\balarms?\b|\btimers?\b|\bstopwatch\b", ("Clock",)),
    (r"\bnotes?\b", ("Keep Notes", "Keep", "Notes")),
    (r"\btext\b|\bmessages?\b|\bsms\b|\bconversation\b|\bchat\b", ("Messages", "Messaging")),
    (r"\bcontacts?\b|\bphone number\b", ("Contacts", "People")),
    (r"\bsearch the web\b|\bweb\s?sites?\b|\b[\w-]+\.(?:com|org|net)\b|\bbrowser\b|\bgoogle\b|\bweb\b",
     ("Chrome", "Browser", "Firefox")),
)
_SHOPPING = re.compile(r"\bbuy\b|\bcart\b|\bshop(?:ping)?\b|\bcheckout\b")


def _stem(token: str) -> str:
    if token.isdigit():
        return str(int(token))
    if ":" in token:
        hour, minute = token.split(":")
        return f"{int(hour)}:{minute}"
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


def tokens(text: str, *, keep_stop_words: bool = False) -> list[str]:
    """Normalised words of a label or a task (stop words dropped unless asked for)."""
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", "", text.casefold().replace("’", "'"))
    words = [w for w in _TOKEN.findall(text) if len(w) > 1 or w.isdigit()]
    return [_stem(w) for w in words if keep_stop_words or w not in STOP_WORDS]


def element_words(element: Element) -> set[str]:
    return set(tokens(f"{element.label} {element.hint} {element.value}"))


@dataclass(frozen=True)
class Toggle:
    words: tuple[str, ...]
    want: str                       # "on" or "off"
    name: str


@dataclass(frozen=True)
class Slider:
    words: tuple[str, ...]
    percent: int


@dataclass(frozen=True)
class TaskIntent:
    text: str
    words: frozenset[str]           # content words, the message text left out
    entities: frozenset[str]        # names and numbers the task mentions: what a target must show
    verbs: frozenset[str]           # action verbs that start one of its clauses
    toggles: tuple[Toggle, ...]
    sliders: tuple[Slider, ...]
    query: str                      # what to search for
    message: str                    # quoted text to send
    ordinal: int                    # "the third product" → 3
    open_target: tuple[str, ...]    # words of "open X" when X is a screen, not an app
    leftover: tuple[str, ...]       # parts of the task no rule understands: never claim those are done
    refused: str                    # why the planner will not try this task ("" = it will)

    @property
    def has_goal(self) -> bool:
        return bool(self.toggles or self.sliders or self.query or self.message or self.ordinal
                    or self.open_target or self.verbs & EFFECT_VERBS)


def _quotes(task: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(task)]


def _entities(task: str, skip: set[str]) -> set[str]:
    """Capitalised words not opening a sentence or clause, times and other numbers — not parts of a phone
    number or a percentage, which are values to enter rather than things to find."""
    found: set[str] = set()
    for match in re.finditer(r"[A-Za-z][\w'-]*|\d{1,2}:\d{2}|(?<![\d-])\d+(?![\d-]|\s*%)", task):
        word = match.group()
        start = task[:match.start()].rstrip()
        opens = not start or start[-1] in ".;:(!?\"“'"
        if word[0].isdigit() or (word[0].isupper() and not opens):
            found.update(tokens(word))
    return found - skip


def _toggle(clause: str) -> Toggle | None:
    for pattern, state_group, target_group in _TOGGLE_PATTERNS:
        match = pattern.search(clause)
        if match and not _PERCENT.search(clause):
            words = tuple(tokens(match.group(target_group)))
            on = match.group(state_group) in ("on", "enable", "activate")
            return Toggle(words, "on" if on else "off", match.group(target_group).strip()) if words else None
    return None


def read_task(task: str, app_words: Iterable[str] = ()) -> TaskIntent:
    quotes = _quotes(task)
    marked = _QUOTED.sub(f" {_MARK} ", task)     # where each quotation was, to tell which clause carries it
    bare = marked.replace(_MARK, " ")
    clauses = [c for c in _CLAUSES.split(marked.casefold()) if c.strip(f" {_MARK}")]
    firsts = [next(iter(tokens(c, keep_stop_words=True)), "") for c in clauses]
    verbs = {w for w in firsts if w in ACTION_VERBS | REFUSED_VERBS}
    sending = bool(verbs & {"text", "message", "send", "reply"})
    message = quotes[0] if sending and len(quotes) == 1 else ""
    toggles, sliders, leftover, query, open_target, ordinal = [], [], [], "", (), 0
    for clause, first in zip(clauses, firsts, strict=True):
        handled = first in _NAVIGATING or first in EFFECT_VERBS or bool(_DISMISS.search(clause))
        toggle = _toggle(clause)
        if toggle is not None:
            toggles.append(toggle)
            handled = True
        percent = _PERCENT.search(clause)
        words = tuple(w for w in tokens(clause[:percent.start()]) if not w.isdigit()) if percent else ()
        if percent and toggle is None and words:
            sliders.append(Slider(words, min(100, int(percent.group(1)))))
            handled = True
        opened = re.search(r"\bopen\s+(?:the\s+)?(.+)$", clause)
        if opened and not re.search(r"\b(?:first|top)\s+(?:result|link)\b", clause):
            open_target = tuple(tokens(opened.group(1)))
        for word, number in _ORDINALS.items():
            if re.search(rf"\b{word}\s+(?!result|link)\w+", clause):
                ordinal = number
        handled = handled or bool(opened) or (bool(message) and _MARK in clause)
        if not handled and tokens(clause) and not _SEARCH.search(clause):
            leftover.append(clause.strip())
    searched = next((m for m in (_SEARCH.search(c) for c in _CLAUSES.split(bare)) if m), None)
    if searched is not None:
        query = searched.group(1).strip(" .")
    names = " ".join(q for q in quotes if q != message)
    app_set = {w for a in app_words for w in tokens(a)}
    # A named app is where to go, not a word to look for inside it.
    if open_target and set(open_target) <= app_set:
        open_target = ()
    words = (set(tokens(bare)) | set(tokens(names))) - app_set
    entities = (_entities(bare, app_set) | set(tokens(names))) - app_set - STOP_WORDS - ACTION_VERBS
    # Say what is left in the user's words, quotations back in place; the longest part is the main request.
    quoted = iter(quotes)
    leftover = sorted((re.sub(_MARK, lambda _: f"'{next(quoted, '')}'", c) for c in leftover), key=len, reverse=True)
    refused = ""
    if verbs & REFUSED_VERBS:
        refused = (f"the fallback planner does not {sorted(verbs & REFUSED_VERBS)[0]} anything on its own; "
                   "configure a model in Settings, which asks you before any purchase")
    return TaskIntent(task, frozenset(words), frozenset(entities), frozenset(verbs), tuple(toggles),
                      tuple(sliders), query, message, ordinal, open_target, tuple(leftover), refused)


# ---------------------------------------------------------------- which app

def _usable(apps: Sequence[AppInfo]) -> list[AppInfo]:
    return [a for a in apps if a.label and not any(h in a.package for h in LAUNCHER_HINTS)]


def _named(task: str, apps: Sequence[AppInfo]) -> tuple[int, AppInfo] | None:
    """An app the task names: its label capitalised anywhere ("in Chrome"), or in lower case after a word
    that introduces an app ("open keep"); a lone "phone" in a sentence is not the Phone app."""
    best: tuple[int, AppInfo] | None = None
    for app in _usable(apps):
        first = app.label.split()[0]
        names = [app.label] + ([first] if len(first) >= 4 and first != app.label else [])
        for name in names:
            escaped = re.escape(name)
            patterns = (re.compile(rf"(?<![\w-]){escaped}(?![\w-])"),
                        re.compile(rf"\b(?:open|in|on|using|launch|start|from)\s+(?:the\s+)?{escaped}\b", re.I))
            for pattern in patterns:
                match = pattern.search(task)
                if match and (best is None or match.start() < best[0]):
                    best = (match.start(), app)
    return best


def _by_label(apps: Sequence[AppInfo], labels: Sequence[str]) -> AppInfo | None:
    usable = _usable(apps)
    for label in labels:
        exact = next((a for a in usable if a.label.casefold() == label.casefold()), None)
        if exact is not None:
            return exact
    for label in labels:
        near = next((a for a in usable if label.casefold() in a.label.casefold().split()), None)
        if near is not None:
            return near
    return None


def choose_app(task: str, apps: Sequence[AppInfo]) -> AppInfo | None:
    """The app the task needs: one it names, else one its words imply, else None (stay where we are)."""
    bare = _QUOTED.sub(" ", task)
    named = _named(bare, apps)
    if named is not None:
        return named[1]
    lower = bare.casefold()
    if _SHOPPING.search(lower):
        shop = _by_label(apps, ("Shop", "Shopping", "Store"))
        if shop is not None:
            return shop
    hits = []
    for pattern, labels in _KEYWORD_APPS:
        match = re.search(pattern, lower)
        app = _by_label(apps, labels) if match else None
        if match and app is not None:
            hits.append((match.start(), app))
    return min(hits, key=lambda hit: hit[0])[1] if hits else None


# ---------------------------------------------------------------- elements

def on_top(element: Element) -> bool:
    return element.window not in (WindowKind.KEYBOARD, WindowKind.SYSTEM, WindowKind.OVERLAY)


def eligible(element: Element) -> bool:
    """A control the planner may tap to move on: not a field, list, switch or slider (other rules own those),
    not disabled and not a tab that is already selected."""
    return (element.interactive and on_top(element) and element.role not in _CONTAINERS
            and "disabled" not in element.states and "selected" not in element.states)


def sensitive(element: Element, intent: TaskIntent) -> bool:
    """Would tapping this do something the task did not literally ask for (delete, send, pay, ...)?"""
    match = _SENSITIVE.search(f"{element.label} {element.node.id_name.replace('_', ' ')}")
    if match is None:
        return False
    word = match.group(1).lower()
    if word in REFUSED_VERBS or word in ("place order", "order now", "check out", "factory reset"):
        return True
    return not (word in intent.verbs or (word == "send" and bool(intent.message)))


def shown_words(element_map: ElementMap) -> set[str]:
    """Every word on the screen (labels, field text, hints), the keyboard left out."""
    words: set[str] = set()
    for element in element_map.elements:
        if on_top(element):
            words |= element_words(element)
    return words


def is_title(element: Element, words: Sequence[str]) -> bool:
    """A non-interactive text that reads exactly the given words (a screen title such as "About phone")."""
    if element.interactive or not words or not on_top(element):
        return False
    return tokens(element.label.split(" · ")[0]) == list(words)


def dismiss_button(buttons: Sequence[Element]) -> Element | None:
    """The button that closes a pop-up without accepting anything; OK only when nothing else fits."""
    by_label = {" ".join(re.sub(r"[^a-z ]", "", b.label.casefold()).split()): b for b in buttons if b.label}
    for wanted in DISMISSIVE:
        if wanted in by_label:
            return by_label[wanted]
    return None


def search_box(element_map: ElementMap) -> tuple[Element | None, Element | None]:
    """The search field, else a search button or icon that opens one."""
    field = button = None
    for element in element_map.elements:
        if not on_top(element) or "disabled" in element.states:
            continue
        says_search = "search" in f"{element.label} {element.hint} {element.node.id_name}".casefold()
        if element.role == "field" and says_search and field is None:
            field = element
        elif eligible(element) and says_search and button is None:
            button = element
    if field is None:
        fields = [e for e in element_map.elements if e.role == "field" and on_top(e)]
        focused = [e for e in fields if "focused" in e.states]
        # A lone focused field after tapping a search icon is where the query goes.
        field = focused[0] if len(fields) == 1 and focused else None
    return field, button


def first_result(element_map: ElementMap, below: Element | None) -> Element | None:
    """The first item of the list under the search field. Only items inside a list or page count: a button
    that floats over an empty result list ("Create contact") is not a result."""
    edge = below.bounds.bottom if below is not None else element_map.screen.height * 0.15
    lists = [e.node for e in element_map.elements if e.role in ("scroll", "web", "pager") and on_top(e)]
    items = [e for e in element_map.elements if eligible(e) and e.bounds.top >= edge and e.label
             and any(container.is_ancestor_of(e.node) for container in lists)]
    return min(items, key=lambda e: (e.bounds.top, e.bounds.left), default=None)


def message_field(element_map: ElementMap) -> Element | None:
    for element in element_map.elements:
        words = set(tokens(f"{element.label} {element.hint}"))
        if element.role == "field" and on_top(element) and words & {"message", "reply", "chat", "compose"} \
                and "search" not in words:
            return element
    return None


def overflow_button(element_map: ElementMap) -> Element | None:
    for element in element_map.elements:
        if eligible(element) and element.label.casefold() in ("more options", "more", "menu", "⋮"):
            return element
    return None


def ordinal_pick(element_map: ElementMap, intent: TaskIntent) -> Element | None:
    """The Nth of a run of look-alike controls (same role and resource id), preferring those that name the
    task's verb: "add the third product" is the third "Add to cart" button."""
    controls = [e for e in element_map.elements if eligible(e) and e.node.resource_id]
    with_verb = [e for e in controls if element_words(e) & intent.verbs]
    pool = with_verb or controls
    groups = Counter((e.role, e.node.resource_id) for e in pool)
    runs = [key for key, count in groups.most_common() if count >= intent.ordinal]
    if not runs:
        return None
    run = sorted((e for e in pool if (e.role, e.node.resource_id) == runs[0]),
                 key=lambda e: (e.bounds.top, e.bounds.left))
    return run[intent.ordinal - 1]


def switch_state(element: Element) -> str:
    """"on" or "off" for a switch or check box, "" for anything that has no such state."""
    if "on" in element.states or "checked" in element.states:
        return "on"
    if "off" in element.states or "unchecked" in element.states:
        return "off"
    return ""


def find_switch(element_map: ElementMap, words: Sequence[str]) -> Element | None:
    """The switch whose label has all the words; the one with the fewest other words is the closest."""
    matches = [e for e in element_map.elements if on_top(e) and switch_state(e) and set(words) <= element_words(e)]
    return min(matches, key=lambda e: (len(element_words(e)), e.bounds.top), default=None)


def screen_key(obs: Observation) -> tuple[str, ...]:
    """What makes two looks at the phone "the same screen": app, activity and title — not the exact content,
    so a cart badge or a toggled switch does not make an already-tried button new again."""
    activity = obs.context.current_app.activity if obs.context.current_app is not None else ""
    top = obs.element_map.screen.height * 0.25
    title = next((e.label.split(" · ")[0] for e in obs.element_map.elements
                  if not e.interactive and e.label and on_top(e) and e.bounds.top < top), "")
    return obs.app, activity, title
