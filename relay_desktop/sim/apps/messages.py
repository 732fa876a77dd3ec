"""Messages (Google Messages): the conversation list, threads of SMS bubbles and "Start chat".

Conversations live in :attr:`Messages.conversations` (newest activity first in the list), and every
message sent from the app is also appended to :attr:`Messages.sent`, which is what task checkers read
("was exactly one text sent to Bob?"). Names come from the Contacts app, matched by number. A text that
arrives (:meth:`Messages.receive`) is unread and posts a notification that opens its thread. The thread
screen lives in messages_thread, the new-conversation screen in messages_compose.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from relay_desktop.sim import fonts
from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import avatar, open_focused
from relay_desktop.sim.apps.messages_compose import START_CHAT, back_in_start_chat, start_chat_screen
from relay_desktop.sim.apps.messages_store import Conversation, Message, SentMessage, recipients_of, same_people
from relay_desktop.sim.apps.messages_thread import back_in_thread, thread_screen
from relay_desktop.sim.notifications import HEADS_UP_SECONDS
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT
from relay_desktop.sim.views import View

if TYPE_CHECKING:
    from relay_desktop.sim.apps.contacts import Contact, Contacts

__all__ = ["LIST", "PACKAGE", "START_CHAT", "THREAD", "Conversation", "Message", "Messages", "SentMessage"]

PACKAGE = "com.google.android.apps.messaging"
LIST = ".ui.ConversationListActivity"
THREAD = ".ui.conversation.ConversationActivity"

# (number, [(minutes before the phone was reset, outgoing?, text)]), oldest conversation last.
SEED: tuple[tuple[str, tuple[tuple[int, bool, str], ...]], ...] = (
    ("555-0142", ((1510, False, "Are you coming to the game on Saturday?"),
                  (1496, True, "Yes! Wouldn't miss it"),
                  (35, False, "Great. Do you have Carol's number? I want to invite her too"))),
    ("555-0187", ((2990, True, "Thanks for dinner last night!"),
                  (2975, False, "Anytime! Lunch next week?"),
                  (2961, True, "Sounds good, Tuesday?"),
                  (2950, False, "Tuesday works. See you then!"))),
    ("555-0175", ((4410, True, "You'd love The Left Hand of Darkness"),
                  (4380, False, "Thanks for the book recommendation! Just started it"))),
    ("22395", ((9020, False, "Relay Mobile: your bill of $35.00 is ready. View it at relaymobile.com/bill"),)),
)


class Messages(App):
    package = PACKAGE
    label = "Messages"
    icon = "chat"
    color = (11, 87, 208)
    main_activity = LIST
    version_name = "messages.android_20240117_00_RC02"
    version_code = 179068034
    screens = {LIST: "conversation_list", THREAD: "thread", START_CHAT: "start_chat"}
    dialogs = {"chat_features": "chat_features_dialog"}

    def reset(self) -> None:
        # Set by a task: the "chat features" prompt Google Messages shows on first launch after an update.
        self.chat_features_prompt = False
        self.chat_features_on = False
        start = self.phone.now().replace(second=0, microsecond=0)
        self.conversations: list[Conversation] = []
        self.sent: list[SentMessage] = []
        self._order = 0
        for number, rows in reversed(SEED):
            conversation = self._conversation_for(number)
            conversation.messages = [Message(text, out, start - timedelta(minutes=ago)) for ago, out, text in rows]
        self.conversations[-1].read = False  # Bob's question is waiting, as a newcomer would see it

    def resolve_intent(self, action: str | None, data: str | None) -> tuple[str, dict[str, Any]] | None:
        if action not in ("android.intent.action.SENDTO", "android.intent.action.VIEW") or not data:
            return None
        scheme, _, rest = data.partition(":")
        if scheme not in ("sms", "smsto"):
            return None
        number, _, query = rest.partition("?")
        params: dict[str, Any] = {"number": unquote(number), "focus_compose": True}
        body = parse_qs(query).get("body")
        if body:
            params["body"] = body[0]
        return THREAD, params

    # ------------------------------------------------------------ data

    @property
    def contacts_app(self) -> Contacts | None:
        return self.phone.apps.get(CONTACTS)  # type: ignore[return-value]

    def contact_for(self, number: str) -> Contact | None:
        contacts = self.contacts_app
        return contacts.by_number(number) if contacts is not None else None

    def display_name(self, number: str) -> str:
        """The contact's name, else the number; a group's names (or numbers) joined, as Messages titles it."""
        people = recipients_of(number)
        if len(people) > 1:
            return ", ".join(self.display_name(person) for person in people)
        contact = self.contact_for(number)
        return contact.name if contact is not None else number

    def find_conversation(self, number: str) -> Conversation | None:
        return next((c for c in self.conversations if same_people(c.number, number)), None)

    def _conversation_for(self, number: str) -> Conversation:
        conversation = self.find_conversation(number)
        if conversation is None:
            conversation = Conversation(number, self.display_name(number))
            self.conversations.append(conversation)
        self._order += 1
        conversation.order = self._order
        return conversation

    def receive(self, number: str, text: str, *, sender: str = "",
                heads_up: float | None = HEADS_UP_SECONDS) -> Conversation:
        """A text arrives from ``number`` (in a group's conversation, written by ``sender``, one of its
        numbers): unread in the list, and a notification that opens the thread, shown as a heads-up card
        for ``heads_up`` seconds — titled with the sender, or for a group with the group, "Name: text"."""
        conversation = self._conversation_for(number)
        conversation.messages.append(Message(text, False, self.phone.now(), sender))
        conversation.read = False
        title, body = self.display_name(conversation.number), text
        if sender:
            body = f"{self.display_name(sender)}: {text}"
        self.phone.notifications.post(PACKAGE, title, body, heads_up=heads_up,
                                      on_open=lambda: self.open(THREAD, number=conversation.number))
        return conversation

    def send(self, number: str, text: str) -> None:
        conversation = self._conversation_for(number)
        conversation.messages.append(Message(text, True, self.phone.now()))
        self.sent.append(SentMessage(conversation.number, self.display_name(conversation.number), text,
                                     conversation.recipients or (conversation.number,)))

    def when(self, time: datetime, *, with_time: bool = False) -> str:
        """A message's time as the list and the thread show it: the clock today, else the day."""
        now = self.phone.now()
        clock = time.strftime("%H:%M" if self.phone.setting("system", "time_12_24", "24") == "24" else "%-I:%M %p")
        days = (now.date() - time.date()).days
        if days <= 0:
            return clock
        day = "Yesterday" if days == 1 else time.strftime("%a" if days < 7 else "%b %-d")
        return f"{day} • {clock}" if with_time else day

    def open_thread(self, number: str) -> None:
        open_focused(self, THREAD, "compose_message_text", number=number)

    # ------------------------------------------------------------ screens

    def thread(self, activity: Activity) -> View:
        return thread_screen(self, activity)

    def start_chat(self, activity: Activity) -> View:
        return start_chat_screen(self, activity)

    def on_back(self, activity: Activity) -> bool:
        if activity.name == START_CHAT:
            return back_in_start_chat(self, activity)
        return activity.name == THREAD and back_in_thread(self, activity)

    def conversation_list(self, activity: Activity) -> View:
        ui = self.ui
        if self.chat_features_prompt and not activity.state.get("prompt_shown"):
            # Modal, like the real prompt: tapping outside it does nothing; one of its buttons must be used.
            activity.state["prompt_shown"] = True
            activity.state["dialog_modal"] = True
            activity.dialog = "chat_features"
        rows = [self._conversation_row(c) for c in sorted(self.conversations, key=lambda c: -c.order)]
        if not rows:
            rows = [ui.text("Start a conversation with your contacts", color=ON_SURFACE_VARIANT, align="center",
                            padding=ui.pad(16, 48), id="empty_state_text")]
        fab = ui.fab("chat", "Start chat", self._start_chat, id="start_chat_fab")
        fab.text, fab.style.size, fab.style.weight = "Start chat", ui.sp(14), 500
        fab.width = ui.dp(72) + fonts.text_width(fab.text, fab.style.size, 500)
        bar = ui.app_bar("Messages")
        bar.children[0].style.align = "center"
        return ui.screen(bar, ui.scroll(rows, key="conversation_list", id="conversation_list",
                                        padding=ui.pad(0, 0, 0, 88)), fab=fab, id="main_content")

    def chat_features_dialog(self, activity: Activity) -> View:
        return self.ui.dialog("Turn on chat features?", "Send messages over Wi-Fi and mobile data, see when "
                              "people are typing, and share high-quality photos.", [
                                  ("Not now", lambda: self._close_prompt(activity)),
                                  ("Turn on", lambda: self._close_prompt(activity, accepted=True)),
                              ])

    def _close_prompt(self, activity: Activity, accepted: bool = False) -> None:
        self.chat_features_prompt = False
        self.chat_features_on = accepted
        activity.state["dialog_modal"] = False
        self.dismiss_dialog(activity)

    def _conversation_row(self, conversation: Conversation) -> View:
        ui = self.ui
        last = conversation.messages[-1] if conversation.messages else None
        snippet = "" if last is None else ("You: " if last.outgoing else "") + last.text
        name = self.display_name(conversation.number)
        when = ui.text(self.when(last.time) if last else "", size=12, color=ON_SURFACE_VARIANT,
                       id="conversation_timestamp")
        row = ui.list_item(name, snippet or " ", leading=avatar(ui, name), trailing=when, title_id="conversation_name",
                           subtitle_id="conversation_snippet", key=f"conversation:{conversation.number}",
                           on_click=lambda: self.open(THREAD, number=conversation.number))
        if not conversation.read:
            title, summary = row.children[1].children
            title.style.weight, summary.style.weight, summary.style.fg = 700, 500, ON_SURFACE
            when.style.weight, when.style.fg = 700, ON_SURFACE
        summary_view = row.children[1].children[-1]
        summary_view.style.max_lines = 1
        return row

    def _start_chat(self) -> None:
        open_focused(self, START_CHAT, "recipient_text_view")
