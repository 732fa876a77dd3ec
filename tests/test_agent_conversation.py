"""The fast agent's conversation: the pinned task message, the window of the last 12 messages, and requests
whose roles alternate."""

from __future__ import annotations

from relay_desktop.agent.loop.conversation import WINDOW, Conversation, merge_roles
from relay_desktop.llm.types import ImagePart, Message

SHOT_1 = ImagePart(b"first screenshot")
SHOT_2 = ImagePart(b"second screenshot", "image/png")


def _turns(conversation: Conversation, count: int) -> list[Message]:
    added = [Message.user(f"screen {i}") if i % 2 == 0 else Message.assistant(f"answer {i}") for i in range(count)]
    for message in added:
        conversation.add(message)
    return added


def test_the_pinned_task_comes_first_then_the_last_twelve_in_order() -> None:
    conversation = Conversation("Turn on Wi-Fi")
    added = _turns(conversation, 31)
    messages = conversation.messages()
    assert WINDOW == 12 and len(messages) == 13
    assert messages[0] == Message.user("TASK: Turn on Wi-Fi")
    assert messages[1:] == added[-12:]
    conversation.add(Message.user("screen 31"))    # the oldest is now a result whose plan fell out: it goes too
    assert conversation.messages()[1:] == [*added[-10:], Message.user("screen 31")]


def test_the_window_is_not_padded_before_it_fills() -> None:
    conversation = Conversation("t")
    added = _turns(conversation, 3)
    assert conversation.messages() == [Message.user("TASK: t"), *added]


def test_the_pinned_message_holds_task_phone_guidance_and_facts_once_and_survives_trimming() -> None:
    conversation = Conversation("Turn on Wi-Fi")
    _turns(conversation, 5)
    conversation.context = "Device: Pixel 8"
    conversation.guidance = "GUIDANCE: open Settings first"
    conversation.facts = "FACTS: - the PIN is 1234"
    added = _turns(conversation, 41)
    messages = conversation.messages()
    assert messages[0] == Message.user("TASK: Turn on Wi-Fi\n\nDevice: Pixel 8\n\nGUIDANCE: open Settings first\n\n"
                                       "FACTS: - the PIN is 1234")
    assert messages[1:] == added[-12:]
    assert conversation.task == "Turn on Wi-Fi"


def test_request_merges_neighbours_of_one_role_so_roles_alternate() -> None:
    conversation = Conversation("Send a message")
    conversation.add(Message.user("earlier screen", SHOT_1))
    conversation.add(Message.assistant("tap e3"))
    conversation.add(Message.assistant("type e4 \"hi\""))
    conversation.add(Message.user("step failed: e9 is not on the screen"))
    request = conversation.request(Message.user("current screen", SHOT_2))
    assert [m.role for m in request] == ["user", "assistant", "user"]
    assert request[0] == Message("user", "TASK: Send a message\n\nearlier screen", (SHOT_1,))
    assert request[1].text == "tap e3\n\ntype e4 \"hi\""
    assert request[2] == Message("user", "step failed: e9 is not on the screen\n\ncurrent screen", (SHOT_2,))
    assert isinstance(request, tuple)
    assert len(conversation.messages()) == 5                     # the request does not change the history


def test_merge_keeps_every_image_in_order() -> None:
    merged = merge_roles([Message.user("a", SHOT_1), Message.user("", SHOT_2), Message.user("c")])
    assert merged == [Message("user", "a\n\nc", (SHOT_1, SHOT_2))]


def test_merge_leaves_alternating_messages_alone() -> None:
    messages = [Message.user("a"), Message.assistant("b"), Message.user("c", SHOT_1)]
    assert merge_roles(messages) == messages
    assert merge_roles([]) == []


def test_the_window_never_starts_with_the_result_of_a_plan_it_dropped() -> None:
    """Readers saw "RESULT of your plan from step 1 …" right after the pinned message, its plan gone."""
    from relay_desktop.agent.loop.conversation import Conversation
    from relay_desktop.llm.types import Message

    conversation = Conversation("Do the thing", window=5)
    for step in range(1, 5):
        conversation.add(Message.assistant(f'{{"plan": {step}}}'))
        conversation.add(Message.user(f"RESULT of your plan from step {step}"))
        conversation.add(Message.user(f"The user answered: {step}"))      # a turn may have several user messages
        window = conversation.messages()[1:]
        assert window[0].role == "assistant", [m.text for m in window]
        assert len(window) <= 5
    assert window[-1].text == "The user answered: 4"
