"""Human in the loop: what needs the user's confirmation, sign-in screens, and the handlers that ask.

Sensitive actions (send, pay, buy, delete, install, …) are recognised from the action and the element it
touches, never from the model's say-so, so text on the screen that talks the model into "send $500" still
stops at the gate. What a control does is read from its own words (text, description, resource id) and the
short labels inside it (a menu row's "Delete"), not from longer text it merely shows: a conversation row whose
preview says "send $500 now" opens a conversation, and anyone can write that preview.

The handlers are plain async callables: the command line asks on the terminal, the window shows a dialog, a
benchmark approves everything, and with no handler the answer is no.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import ResolvedStep
from relay_desktop.perception import Element, current_dialog, focused_field
from relay_desktop.perception.labels import own_words

__all__ = ["AllowedDeletion", "Handlers", "allowed_deletion", "confirms_allowed_deletion", "control_words",
           "sensitive_reason", "typing_secret"]

AskUser = Callable[[str], Awaitable[str | None]]        # question → answer (None: no answer)
Confirm = Callable[[str], Awaitable[bool]]              # description → allowed?

_SENSITIVE = re.compile(
    r"\b(send|sent|pay|payment|purchase|buy|checkout|check out|place order|order now|transfer|delete|remove|"
    r"erase|uninstall|install|factory reset|reset|unsubscribe|post|publish|share|submit|donate|withdraw)\b", re.I)
_MESSAGE_FIELD = re.compile(r"\b(message|text message|reply|chat|comment|post|tweet|email)\b", re.I)
# "Review transfer", "Preview post": opens the screen where the real button is (which is confirmed in turn).
_LEADS_TO_REVIEW = re.compile(r"\s*(review|preview)\b", re.I)
CONTENT_WORDS = 5   # a longer text inside a control is content it shows (a message preview), not what it does
_DELETES = ("delete", "remove", "erase")


@dataclass
class Handlers:
    ask_user: AskUser | None = None
    confirm: Confirm | None = None

    async def ask(self, question: str) -> str | None:
        return await self.ask_user(question) if self.ask_user is not None else None

    async def allowed(self, description: str) -> bool:
        return await self.confirm(description) if self.confirm is not None else False


def sensitive_reason(resolved: ResolvedStep, observation: Observation) -> str | None:
    """Why this step needs the user's OK (a sentence for the confirmation), or None."""
    step, target = resolved.step, resolved.target
    if step.action in ("tap", "long_press") and target is not None:
        words = control_words(target)
        match = _SENSITIVE.search(words)
        if match and not _LEADS_TO_REVIEW.match(target.name or words):
            # The control's own app: in split screen the app "in front" is only the half touched last.
            app = target.node.package or observation.app
            return f'{step.action.replace("_", " ")} "{target.name}" ({match.group(1).lower()}) in {app}'
    if step.action == "type" and step.params.get("submit"):
        field = target or focused_field(observation.element_map)
        name = f"{field.label} {field.hint}" if field is not None else ""
        if _MESSAGE_FIELD.search(name):
            what = f'the secret {step.params["secret"]}' if step.params.get("secret") else \
                f'"{step.params.get("text", "")}"'
            return f'send {what} (typed into "{field.name if field else "field"}")'
    if step.action == "shell":
        return f"run `{step.params.get('command', '')}` in the phone's shell"
    if step.action == "launch_app" and re.search(r"\b(install|uninstall)\b", str(step.params.get("app", "")), re.I):
        return f"open {step.params['app']}"
    return None


@dataclass(frozen=True)
class AllowedDeletion:
    """A deletion the user allowed: the app's own "Delete this note?" dialog that follows carries it out."""

    app: str
    iteration: int


def _deletion_app(resolved: ResolvedStep, observation: Observation) -> str | None:
    target = resolved.target
    if resolved.step.action != "tap" or target is None:
        return None
    match = _SENSITIVE.search(control_words(target))
    return (target.node.package or observation.app) if match and match.group(1).lower() in _DELETES else None


def allowed_deletion(resolved: ResolvedStep, observation: Observation, iteration: int) -> AllowedDeletion | None:
    """What a step the user just allowed covers: a tap that deletes, in its app, for the next step or two."""
    app = _deletion_app(resolved, observation)
    return AllowedDeletion(app, iteration) if app is not None else None


def confirms_allowed_deletion(allowed: AllowedDeletion | None, resolved: ResolvedStep, observation: Observation,
                              iteration: int) -> bool:
    """The step is the Delete button of a dialog the app opened right after a deletion the user allowed in that
    app: one confirmation per deletion (asking again would ask the same question twice)."""
    if allowed is None or iteration - allowed.iteration > 1 or _deletion_app(resolved, observation) != allowed.app:
        return False
    dialog = current_dialog(observation.element_map)
    return dialog is not None and resolved.target in dialog.buttons


def control_words(element: Element) -> str:
    """What a control says it does: its own text and description, those of the controls merged into it, its
    resource id in words, and the short texts inside it; longer texts inside it are content it shows."""
    words = [text for source in element.sources for text in own_words(source)
             if source is element.node or source.interactive or len(text.split()) <= CONTENT_WORDS]
    words.append(element.node.resource_id.rsplit("/", 1)[-1].replace("_", " "))
    return " ".join(words)


def typing_secret(resolved: ResolvedStep, observation: Observation, given: list[str]) -> bool:
    """True when the step types into a password field text the user did not give in this run."""
    if resolved.step.action != "type" or resolved.step.params.get("secret"):
        return False        # a saved secret is the user's to type: it is what the field is for
    target = resolved.target or focused_field(observation.element_map)
    if target is None:
        return False
    password = "password" in target.states or any(n.password for n in target.sources)
    text = str(resolved.step.params.get("text", ""))
    return password and not any(text and text in answer for answer in given)
