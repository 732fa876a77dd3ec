"""Messages (Google Messages): the conversation list, threads of SMS bubbles and "Start chat".

Conversations live in :attr:`Messages.conversations` (newest activity first in the list), and every
message sent from the app is also appended to :attr:`Messages.sent`, which is what task checkers read
("was exactly one text sent to Bob?"). Names come from the Contacts app, matched by number. A text that
arrives (:meth:`Messages.receive`) is unread and posts a notification that opens its thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from relay_desktop.sim import fonts
from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import (
    autofocus,
    avatar,
    digits,
    keyboard_inset,
    open_focused,
    same_number,
)
from relay_desktop.sim.notifications import HEADS_UP_SECONDS
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, PRIMARY, SURFACE
from relay_desktop.sim.views import Style, View, measure_height

if TYPE_CHECKING:
    from relay_desktop.sim.apps.contacts import Contact, Contacts

PACKAGE = "com.google.android.apps.messaging"
LIST = ".ui.ConversationListActivity"
THREAD = ".ui.conversation.ConversationActivity"
START_CHAT = ".ui.startchat.StartChatActivity"

INCOMING_BUBBLE = (233, 236, 242)
OUTGOING_BUBBLE = (211, 227, 253)
SELECTED_BUBBLE = (168, 199, 250)     # a long-pressed message, while the selection bar is up
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


@dataclass
class Message:
    text: str
    outgoing: bool
    time: datetime


@dataclass
class Conversation:
    number: str                 # as first dialled or received
    name: str                   # the contact's name when the conversation started, else the number
    messages: list[Message] = field(default_factory=list)
    read: bool = True
    order: int = 0              # bumped by each new message: the list shows the highest first


@dataclass(frozen=True)
class SentMessage:
    number: str
    name: str
    text: str


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
        contact = self.contact_for(number)
        return contact.name if contact is not None else number

    def find_conversation(self, number: str) -> Conversation | None:
        return next((c for c in self.conversations if same_number(c.number, number) or c.number == number), None)

    def _conversation_for(self, number: str) -> Conversation:
        conversation = self.find_conversation(number)
        if conversation is None:
            conversation = Conversation(number, self.display_name(number))
            self.conversations.append(conversation)
        self._order += 1
        conversation.order = self._order
        return conversation

    def receive(self, number: str, text: str, *, heads_up: float | None = HEADS_UP_SECONDS) -> Conversation:
        """A text arrives from ``number``: unread in the list, and a notification (sender, text) that opens
        the thread, shown as a heads-up card for ``heads_up`` seconds."""
        conversation = self._conversation_for(number)
        conversation.messages.append(Message(text, False, self.phone.now()))
        conversation.read = False
        self.phone.notifications.post(PACKAGE, self.display_name(number), text, heads_up=heads_up,
                                      on_open=lambda: self.open(THREAD, number=conversation.number))
        return conversation

    def send(self, number: str, text: str) -> None:
        conversation = self._conversation_for(number)
        conversation.messages.append(Message(text, True, self.phone.now()))
        self.sent.append(SentMessage(conversation.number, self.display_name(number), text))

    def _when(self, time: datetime, *, with_time: bool = False) -> str:
        now = self.phone.now()
        clock = time.strftime("%H:%M" if self.phone.setting("system", "time_12_24", "24") == "24" else "%-I:%M %p")
        days = (now.date() - time.date()).days
        if days <= 0:
            return clock
        day = "Yesterday" if days == 1 else time.strftime("%a" if days < 7 else "%b %-d")
        return f"{day} • {clock}" if with_time else day

    # ------------------------------------------------------------ conversation list

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
        when = ui.text(self._when(last.time) if last else "", size=12, color=ON_SURFACE_VARIANT,
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

    # ------------------------------------------------------------ thread

    def thread(self, activity: Activity) -> View:
        ui = self.ui
        number = str(activity.params.get("number", ""))
        state = activity.state
        if "draft" not in state:
            state["draft"] = str(activity.params.get("body", ""))
        if activity.params.get("focus_compose"):
            autofocus(activity, "compose_message_text")
        conversation = self.find_conversation(number)
        if conversation is not None:
            conversation.read = True
        name = self.display_name(number)
        bar = ui.app_bar(name, up=self.finish, actions=[
            ui.icon_button("phone", "Call", lambda: self._call(number, name), id="action_call")])
        bar.children.insert(1, avatar(ui, name, size=32))
        bar.children[2].id = "conversation_title"
        bar.gap = ui.dp(8)
        selected = state.get("selected")
        if conversation is not None and selected is not None and selected < len(conversation.messages):
            bar = self._selection_bar(activity, conversation.messages[selected].text)

        draft = state["draft"]
        field_view = ui.edit_text("compose_message_text", draft, hint="Text message", variant="search",
                                  on_change=self.field_setter(activity, "draft"))
        field_view.weight = 1
        ready = bool(draft.strip())
        send = ui.icon_button("send", "Send SMS", lambda: self._send(activity, number), id="send_message_button_icon",
                              color=(255, 255, 255) if ready else ON_SURFACE_VARIANT)
        send.enabled = ready
        send.on_click = send.on_click if ready else None
        if ready:
            send.style.bg = PRIMARY
        compose = View(cls="android.widget.LinearLayout", id="compose_message_view", orientation="h",
                       children=[field_view, send], gap=ui.dp(8), padding=ui.pad(12, 8, 12, 8), height=ui.dp(72),
                       style=Style(bg=SURFACE))
        send.height = send.width = ui.dp(48)
        inset = keyboard_inset(self.phone)
        avail = (self.window_size[1] - ui.dp(24) - ui.dp(48) - ui.dp(64) - ui.dp(72)
                 - ((inset.height or 0) if inset is not None else 0))
        items = self._stacked_from_end(activity, self._bubbles(activity, conversation, name), avail)
        messages = ui.scroll(items, key="messages_list", gap=4, padding=ui.pad(16, 8, 16, 8))
        body = ui.column([messages, compose], weight=1)
        return ui.screen(bar, body, bottom=inset, id="conversation_view")

    def _call(self, number: str, name: str) -> None:
        contacts = self.contacts_app
        if contacts is not None:
            contacts.calls.append(number)   # one call log for the phone, kept by Contacts
        self.toast(f"Calling {name}…")

    def _selection_bar(self, activity: Activity, text: str) -> View:
        """Google Messages' top bar while a message is selected (a long press): close, and Copy."""
        ui = self.ui
        copy = ui.icon_button("content_copy", "Copy", lambda: self._copy(activity, text), id="action_copy_text")
        bar = ui.app_bar("1 selected", actions=[copy], id="selection_toolbar")
        bar.children.insert(0, ui.icon_button("close", "Close", lambda: self._unselect(activity),
                                              id="action_mode_close_button"))
        bar.padding, bar.gap = ui.pad(4, 8), ui.dp(8)
        return bar

    def _select(self, activity: Activity, index: int) -> None:
        activity.state["selected"] = index
        self.phone.invalidate()

    def _unselect(self, activity: Activity) -> None:
        activity.state.pop("selected", None)
        self.phone.invalidate()

    def _copy(self, activity: Activity, text: str) -> None:
        self.phone.clipboard = text
        self._unselect(activity)

    def on_back(self, activity: Activity) -> bool:
        if activity.state.get("selected") is not None:   # BACK ends the selection, not the thread
            self._unselect(activity)
            return True
        return False

    def _bubbles(self, activity: Activity, conversation: Conversation | None, name: str) -> list[View]:
        ui = self.ui
        items: list[View] = []
        if conversation is None or not conversation.messages:
            return [ui.text(f"Send a message to start your conversation with {name}", size=14, align="center",
                            color=ON_SURFACE_VARIANT, padding=ui.pad(24, 16), id="empty_conversation")]
        max_width = int(self.window_size[0] * 0.72)
        previous: Message | None = None
        selected = activity.state.get("selected")
        for index, message in enumerate(conversation.messages):
            if previous is None or message.time - previous.time > timedelta(hours=1):
                items.append(ui.text(self._when(message.time, with_time=True), size=12, align="center",
                                     color=ON_SURFACE_VARIANT, padding=ui.pad(0, 16, 0, 8), id="message_status"))
            size = ui.sp(16)
            pad_h, pad_v = ui.dp(16), ui.dp(10)
            width = min(max_width, fonts.text_width(message.text, size) + 2 * pad_h + 2)
            bg = OUTGOING_BUBBLE if message.outgoing else INCOMING_BUBBLE
            bubble = View(cls="android.widget.TextView", id="message_text", text=message.text, width=width,
                          padding=(pad_h, pad_v, pad_h, pad_v), long_clickable=True, selected=index == selected,
                          on_long_click=lambda i=index: self._select(activity, i),   # type: ignore[misc]
                          align="end" if message.outgoing else "start",
                          style=Style(kind="text", size=size, radius=ui.dp(20),
                                      bg=SELECTED_BUBBLE if index == selected else bg))
            if not message.outgoing:
                bubble = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(8),
                              children=[self._sender(name), bubble])
            items.append(bubble)
            previous = message
        return items

    def _sender(self, name: str) -> View:
        view = avatar(self.ui, name, size=32)
        view.align = "end"
        return view

    def _stacked_from_end(self, activity: Activity, items: list[View], available: int) -> list[View]:
        """Lay the thread out like a list that stacks from the end: a short thread sits just above the
        composer, and a long one stays scrolled to the newest message unless the user scrolled up."""
        ui = self.ui
        width, gap = self.window_size[0] - ui.dp(32), ui.dp(4)
        used = sum(measure_height(v, v.width or width) for v in items) + gap * (len(items) - 1) + 2 * ui.dp(8)
        bottom = max(0, used - available)
        seen = activity.scroll.get("messages_list")
        if seen is None or seen >= activity.state.get("scroll_bottom", 0) - 2:
            activity.scroll["messages_list"] = 1 << 30  # layout clamps it to the end
        activity.state["scroll_bottom"] = bottom
        if used >= available:
            return items
        return [View(cls="android.view.View", height=available - used - gap), *items]

    def _send(self, activity: Activity, number: str) -> None:
        text = activity.state.get("draft", "").strip()
        if not text:
            return
        self.send(number, text)
        activity.state["draft"] = ""
        activity.scroll["messages_list"] = 1 << 30
        self.phone.invalidate()

    # ------------------------------------------------------------ start chat

    def start_chat(self, activity: Activity) -> View:
        ui = self.ui
        autofocus(activity, "recipient_text_view")
        query = activity.state.get("to", "")
        to = ui.edit_text("recipient_text_view", query, hint="Type a name, phone number, or email",
                          variant="search", on_change=self.field_setter(activity, "to"),
                          on_submit=lambda: self._submit_recipient(activity))
        to.weight, to.style.bg, to.padding = 1, SURFACE, ui.pad(8, 14)
        to_row = View(cls="android.widget.LinearLayout", orientation="h", padding=ui.pad(16, 0, 8, 0),
                      children=[ui.text("To", size=16, color=ON_SURFACE_VARIANT, id="to_label", padding=ui.pad(0, 16)),
                                to])
        rows: list[View] = []
        if self._looks_like_number(query):
            rows.append(ui.list_item(f"Send to {query.strip()}", leading=avatar(ui, "#"), key="send_to_number",
                                     title_id="contact_name", on_click=lambda: self._open_thread(query.strip())))
        contacts = self.contacts_app.search(query) if self.contacts_app is not None else []
        if contacts:
            rows.append(ui.text("All contacts" if not query else "Contacts", size=14, weight=500, color=PRIMARY,
                                padding=ui.pad(16, 16, 16, 8), id="section_title"))
        for contact in contacts:
            rows.append(ui.list_item(contact.name, contact.phone, leading=avatar(ui, contact.name),
                                     key=f"pick:{contact.id}", title_id="contact_name",
                                     subtitle_id="contact_destination",
                                     on_click=lambda c=contact: self._open_thread(c.phone)))
        bar = ui.app_bar("New conversation", up=self.finish)
        body = ui.column([to_row, ui.divider(), ui.scroll(rows, key="contact_picker_list", id="contact_picker_list")])
        return ui.screen(bar, body, bottom=keyboard_inset(self.phone), id="start_chat_view")

    @staticmethod
    def _looks_like_number(text: str) -> bool:
        return len(digits(text)) >= 3 and re.fullmatch(r"[\d\s()+\-.]+", text.strip()) is not None

    def _submit_recipient(self, activity: Activity) -> None:
        query = activity.state.get("to", "").strip()
        matches = self.contacts_app.search(query) if self.contacts_app is not None and query else []
        if len(matches) == 1:
            self._open_thread(matches[0].phone)
        elif self._looks_like_number(query):
            self._open_thread(query)

    def _open_thread(self, number: str) -> None:
        self.finish()  # back from the new thread goes to the conversation list, not to the picker
        open_focused(self, THREAD, "compose_message_text", number=number)
