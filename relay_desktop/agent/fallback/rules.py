"""What the rule-based fallback planner reads in a task and on a screen.

Words are compared after one normalisation on both sides (case, "Wi-Fi" == "wifi", "08:00" == "8:00", a plural
"s"), so a task and a label meet however either is spelled. The task is read once into a :class:`TaskIntent`:
its content words, the names it mentions, the app it needs and the goals the planner knows how to finish
(switches, sliders, a search, a message, an action such as delete or add). Nothing here touches the phone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from relay_desktop.agent.loop.observation import LAUNCHER_HINTS
from relay_desktop.device.models import AppInfo

__all__ = ["ACTION_VERBS", "DESTRUCTIVE", "EFFECT_VERBS", "REFUSED_VERBS", "Slider", "TaskIntent", "Toggle",
           "choose_app", "read_task", "tokens"]

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
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
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
_SENDING = frozenset({"text", "message", "send", "reply"})
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
    action: str                     # the verb of the one clause that changes something ("add", "delete")
    leftover: tuple[str, ...]       # parts of the task no rule understands: never claim those are done
    refused: str                    # why the planner will not try this task ("" = it will)

    @property
    def has_goal(self) -> bool:
        return bool(self.toggles or self.sliders or self.query or self.message or self.ordinal
                    or self.open_target or self.action)


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


def _split(marked: str) -> list[tuple[str, str]]:
    """The task's clauses, each with the separator that follows it, so the kept ones can be put back as
    written (a capital after "and" is a name, after "." it is not)."""
    pieces = re.split(f"({_CLAUSES.pattern})", marked, flags=re.I)
    return list(zip(pieces[0::2], [*pieces[1::2], ""], strict=True))


def read_task(task: str, apps: Sequence[AppInfo] = ()) -> TaskIntent:
    """Read the task clause by clause. Each clause becomes a goal a rule can reach and check on the screen,
    or, when none can, a part left for a model: one in another app than the planner's (it works in one), a
    second errand after the one action or message it tracks, a question or a bare "where to go" with no goal
    to reach. The parts left over keep the planner from ever calling the task done."""
    app = choose_app(task, apps)
    quotes = iter(_quotes(task))
    marked = _QUOTED.sub(f" {_MARK} ", task)     # where each quotation was, to tell which clause carries it
    pieces = [(c, sep, [next(quotes, "") for _ in range(c.count(_MARK))]) for c, sep in _split(marked)]
    parts = [(i, c.casefold(), q) for i, (c, _, q) in enumerate(pieces) if c.strip(f" {_MARK}")]
    firsts = [next(iter(tokens(c, keep_stop_words=True)), "") for _, c, _ in parts]
    all_verbs = {w for w in firsts if w in ACTION_VERBS | REFUSED_VERBS}
    # A clause that needs another app than the one the planner opens is not something it can do there.
    elsewhere = [app is not None and choose_app(pieces[i][0].replace(_MARK, " "), apps) not in (None, app)
                 for i, _, _ in parts]
    quoted = [q for _, _, qs in parts for q in qs]
    sending = [first in _SENDING and not away for first, away in zip(firsts, elsewhere, strict=True)]
    carrier = next((n for n, (_, _, qs) in enumerate(parts) if qs), -1)
    message = quoted[0] if any(sending) and len(quoted) == 1 and not elsewhere[carrier] else ""
    toggles, sliders, left, navigating, ordinal, open_target = [], [], [], [], 0, ()
    action, query = "", ""
    for n, ((_, clause, _), first) in enumerate(zip(parts, firsts, strict=True)):
        if elsewhere[n]:
            left.append(n)
            continue
        effect = first in EFFECT_VERBS and not (message and n == carrier)
        if effect and (action or message):
            left.append(n)       # one action or message is what it tracks; a second errand is not covered
            continue
        action = action or (first if effect else "")
        handled = effect or bool(_DISMISS.search(clause)) or bool(message and n == carrier)
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
        searched = _SEARCH.search(pieces[parts[n][0]][0].replace(_MARK, " "))
        if searched is not None and not query:
            query = searched.group(1).strip(" .")
        handled = handled or bool(opened) or bool(searched)
        if not handled and first in _NAVIGATING:
            navigating.append(n)
        elif not handled and tokens(clause):
            left.append(n)
    app_set = set(tokens(app.label)) if app is not None else set()
    # A named app is where to go, not a word to look for inside it.
    if open_target and set(open_target) <= app_set:
        open_target = ()
    if not (toggles or sliders or query or message or ordinal or open_target or action):
        left += navigating       # "show me…", "how many…": with nothing to reach, an answer needs a model
    dropped = {parts[n][0] for n in left}
    kept = "".join((" " if i in dropped else c) + sep for i, (c, sep, _) in enumerate(pieces)).replace(_MARK, " ")
    names = " ".join(q for i, (_, _, qs) in enumerate(pieces) if i not in dropped for q in qs if q != message)
    words = (set(tokens(kept)) | set(tokens(names))) - app_set
    entities = (_entities(kept, app_set) | set(tokens(names))) - app_set - STOP_WORDS - ACTION_VERBS
    verbs = {first for n, first in enumerate(firsts) if first in ACTION_VERBS and n not in left}
    # Say what is left in the user's words, quotations back in place; the first part is named first.
    leftover = []
    for n in sorted(left):
        _, clause, qs = parts[n]
        for quote in qs:
            clause = clause.replace(_MARK, f"'{quote}'", 1)
        leftover.append(" ".join(clause.split()))
    refused = ""
    if all_verbs & REFUSED_VERBS:
        refused = (f"the fallback planner does not {sorted(all_verbs & REFUSED_VERBS)[0]} anything on its own; "
                   "configure a model in Settings, which asks you before any purchase")
    return TaskIntent(task, frozenset(words), frozenset(entities), frozenset(verbs), tuple(toggles),
                      tuple(sliders), query, message, ordinal, open_target, action, tuple(leftover), refused)


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
