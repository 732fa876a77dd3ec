"""Human in the loop: which steps need the user's OK (from the element touched, not from the model), the
handlers' default answers, and typing into password fields."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import pytest

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import ResolvedStep, Step, resolve_step
from relay_desktop.agent.steps.safety import Handlers, sensitive_reason, typing_secret
from relay_desktop.device.models import CurrentApp, DeviceContext
from relay_desktop.perception import build_element_map

PACKAGE = "com.example.shop"
CONTEXT = DeviceContext(serial="test", model="Pixel", manufacturer="Google", android_release="14", sdk=34,
                        locale="en-US", timezone="UTC", screen_width=1080, screen_height=2400, density=420,
                        keyboard_shown=False, current_app=CurrentApp(PACKAGE, ".Main"))


def _node(cls: str, top: int, **attrs: str) -> str:
    extra = " ".join(f'{k.replace("_", "-")}={quoteattr(v)}' for k, v in attrs.items())
    return f'<node class="{cls}" package="{PACKAGE}" bounds="[0,{top}][1080,{top + 150}]" {extra} />'


def _observe(*nodes: str) -> Observation:
    xml = (f'<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="{PACKAGE}" '
           'bounds="[0,0][1080,2400]">' + "".join(nodes) + "</node></hierarchy>")
    return Observation.of(build_element_map(xml), None, CONTEXT, 0.0, 0.0)


def _button(text: str = "", **attrs: str) -> Observation:
    return _observe(_node("android.widget.Button", 200, text=text, clickable="true", **attrs))


def _field(hint: str, *, focused: bool = False, password: bool = False) -> str:
    return _node("android.widget.EditText", 600, hint=hint, clickable="true", focused=str(focused).lower(),
                 password=str(password).lower())


def _reason(step: Step, observation: Observation) -> str | None:
    return sensitive_reason(resolve_step(step, observation.element_map), observation)


@pytest.mark.parametrize(("label", "word"), [
    ("Send", "send"), ("Pay $12.00", "pay"), ("Delete", "delete"), ("Buy now", "buy"), ("Install", "install"),
    ("Place order", "place order"), ("Checkout", "checkout"), ("Transfer money", "transfer"),
])
@pytest.mark.parametrize("action", ["tap", "long_press"])
def test_touching_a_sensitive_control_needs_confirmation(label: str, word: str, action: str) -> None:
    observation = _button(label)
    reason = _reason(Step.of(action, element="e1"), observation)
    assert reason == f'{action.replace("_", " ")} "{label}" ({word}) in {PACKAGE}'


def test_a_sensitive_resource_id_counts_when_the_control_shows_no_words() -> None:
    observation = _button(resource_id=f"{PACKAGE}:id/send_button")
    assert _reason(Step.of("tap", element="e1"), observation) == f'tap "send button" (send) in {PACKAGE}'


def test_a_tap_at_a_point_is_judged_by_the_element_there() -> None:
    assert _reason(Step.of("tap", x=540, y=275), _button("Pay")) is not None


@pytest.mark.parametrize("label", ["Wi-Fi", "Network & internet", "Bluetooth", "Sender settings", "Equalizer preset",
                                   "Signpost", "Display", "Review transfer", "Preview post"])
def test_harmless_controls_need_no_confirmation(label: str) -> None:
    assert _reason(Step.of("tap", element="e1"), _button(label)) is None


def test_actions_other_than_touching_a_control_ignore_its_label() -> None:
    observation = _button("Delete")
    for step in (Step.of("scroll", direction="down", element="e1"), Step.of("back"),
                 Step.of("type", element="e1", text="hi")):
        assert _reason(step, observation) is None


@pytest.mark.parametrize("hint", ["Text message", "Reply", "Add a comment", "Write an email"])
def test_typing_with_submit_into_a_message_field_needs_confirmation(hint: str) -> None:
    observation = _observe(_field(hint))
    reason = _reason(Step.of("type", element="e1", text="on my way", submit=True), observation)
    assert reason == f'send "on my way" (typed into "{hint}")'
    assert _reason(Step.of("type", element="e1", text="on my way"), observation) is None


def test_typing_with_submit_goes_to_the_focused_field_when_no_element_is_given() -> None:
    observation = _observe(_field("Search"), _node("android.widget.EditText", 900, hint="Text message",
                                                   clickable="true", focused="true"))
    reason = _reason(Step.of("type", text="hello", submit=True), observation)
    assert reason == 'send "hello" (typed into "Text message")'
    unfocused = _observe(_field("Text message"))
    assert _reason(Step.of("type", text="hello", submit=True), unfocused) is None


def test_submitting_a_search_needs_no_confirmation() -> None:
    observation = _observe(_field("Search products"))
    assert _reason(Step.of("type", element="e1", text="shoes", submit=True), observation) is None


def test_shell_commands_and_installer_launches_need_confirmation() -> None:
    observation = _button("OK")
    assert _reason(Step.of("shell", command="pm list packages"), observation) == \
        "run `pm list packages` in the phone's shell"
    assert _reason(Step.of("launch_app", app="Install helper"), observation) == "open Install helper"
    assert _reason(Step.of("launch_app", app="Clock"), observation) is None


async def test_handlers_answer_no_without_a_handler() -> None:
    handlers = Handlers()
    assert await handlers.ask("Which account?") is None
    assert await handlers.allowed('tap "Send"') is False


async def test_handlers_pass_questions_to_the_given_callables() -> None:
    asked: list[str] = []

    async def ask(question: str) -> str | None:
        asked.append(question)
        return "the work one"

    async def confirm(description: str) -> bool:
        asked.append(description)
        return True

    handlers = Handlers(ask_user=ask, confirm=confirm)
    assert await handlers.ask("Which account?") == "the work one"
    assert await handlers.allowed('tap "Send"') is True
    assert asked == ["Which account?", 'tap "Send"']


def _typing(observation: Observation, text: str, element: str | None = "e1") -> ResolvedStep:
    step = Step.of("type", text=text, **({"element": element} if element else {}))
    return resolve_step(step, observation.element_map)


def test_typing_into_a_password_field_is_a_secret_unless_the_user_gave_the_text() -> None:
    observation = _observe(_field("Password", password=True))
    assert typing_secret(_typing(observation, "hunter2"), observation, []) is True
    assert typing_secret(_typing(observation, "hunter2"), observation, ["my password is hunter2"]) is False
    assert typing_secret(_typing(observation, "hunter2"), observation, ["something else"]) is True


def test_typing_into_the_focused_password_field_is_a_secret() -> None:
    observation = _observe(_field("Email"), _node("android.widget.EditText", 900, hint="Password",
                                                  clickable="true", focused="true", password="true"))
    assert typing_secret(_typing(observation, "hunter2", element=None), observation, []) is True


def test_ordinary_fields_and_other_actions_are_no_secret() -> None:
    observation = _observe(_field("Email"))
    assert typing_secret(_typing(observation, "me@example.com"), observation, []) is False
    assert typing_secret(_typing(observation, "x", element=None), observation, []) is False     # no focused field
    secret = _observe(_field("Password", password=True))
    tap = resolve_step(Step.of("tap", element="e1"), secret.element_map)
    assert typing_secret(tap, secret, []) is False


def test_a_confirmation_names_the_app_the_control_is_in_not_the_focused_one() -> None:
    """In split screen the app in front is the half touched last; "Send SMS" in the other half was once asked
    about as being in Keep Notes."""
    messages = "com.google.android.apps.messaging"
    xml = (f'<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="{PACKAGE}" '
           f'bounds="[0,0][1080,1150]" /><node class="android.widget.FrameLayout" package="{messages}" '
           f'bounds="[0,1180][1080,2274]"><node class="android.widget.Button" package="{messages}" '
           'content-desc="Send SMS" clickable="true" bounds="[900,2100][1060,2250]" /></node></hierarchy>')
    observation = Observation.of(build_element_map(xml), None, CONTEXT, 0.0, 0.0)
    assert _reason(Step.of("tap", element="e1"), observation) == f'tap "Send SMS" (send) in {messages}'
