"""A Messages thread: the bubbles (stacked from the end, as the real list does), the composer and Send,
and a long-pressed message's selection bar with Copy."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from relay_desktop.sim import fonts
from relay_desktop.sim.apps.contacts import autofocus, avatar, keyboard_inset
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, PRIMARY, SURFACE
from relay_desktop.sim.views import Style, View, measure_height

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.messages import Messages
    from relay_desktop.sim.apps.messages_store import Conversation, Message

INCOMING_BUBBLE = (233, 236, 242)
OUTGOING_BUBBLE = (211, 227, 253)
SELECTED_BUBBLE = (168, 199, 250)     # a long-pressed message, while the selection bar is up


def thread_screen(app: Messages, activity: Activity) -> View:
    ui = app.ui
    number = str(activity.params.get("number", ""))
    state = activity.state
    if "draft" not in state:
        state["draft"] = str(activity.params.get("body", ""))
    if activity.params.get("focus_compose"):
        autofocus(activity, "compose_message_text")
    conversation = app.find_conversation(number)
    if conversation is not None:
        conversation.read = True
        number = conversation.number    # a group keeps its own order of people, however it was reached
    name = app.display_name(number)
    bar = ui.app_bar(name, up=app.finish, actions=[
        ui.icon_button("phone", "Call", lambda: _call(app, number, name), id="action_call")])
    bar.children.insert(1, avatar(ui, name, size=32))
    bar.children[2].id = "conversation_title"
    bar.gap = ui.dp(8)
    selected = state.get("selected")
    if conversation is not None and selected is not None and selected < len(conversation.messages):
        bar = _selection_bar(app, activity, conversation.messages[selected].text)

    draft = state["draft"]
    field_view = ui.edit_text("compose_message_text", draft, hint="Text message", variant="search",
                              on_change=app.field_setter(activity, "draft"))
    field_view.weight = 1
    ready = bool(draft.strip())
    send = ui.icon_button("send", "Send SMS", lambda: _send(app, activity, number), id="send_message_button_icon",
                          color=(255, 255, 255) if ready else ON_SURFACE_VARIANT)
    send.enabled = ready
    send.on_click = send.on_click if ready else None
    if ready:
        send.style.bg = PRIMARY
    compose = View(cls="android.widget.LinearLayout", id="compose_message_view", orientation="h",
                   children=[field_view, send], gap=ui.dp(8), padding=ui.pad(12, 8, 12, 8), height=ui.dp(72),
                   style=Style(bg=SURFACE))
    send.height = send.width = ui.dp(48)
    inset = keyboard_inset(app.phone)
    avail = (app.window_size[1] - ui.dp(24) - ui.dp(48) - ui.dp(64) - ui.dp(72)
             - ((inset.height or 0) if inset is not None else 0))
    items = _stacked_from_end(app, activity, _bubbles(app, activity, conversation, name), avail)
    messages = ui.scroll(items, key="messages_list", gap=4, padding=ui.pad(16, 8, 16, 8))
    body = ui.column([messages, compose], weight=1)
    return ui.screen(bar, body, bottom=inset, id="conversation_view")


def back_in_thread(app: Messages, activity: Activity) -> bool:
    """BACK while a message is selected ends the selection, not the thread."""
    if activity.state.get("selected") is not None:
        _unselect(app, activity)
        return True
    return False


def _call(app: Messages, number: str, name: str) -> None:
    contacts = app.contacts_app
    if contacts is not None:
        contacts.calls.append(number)   # one call log for the phone, kept by Contacts
    app.toast(f"Calling {name}…")


def _selection_bar(app: Messages, activity: Activity, text: str) -> View:
    """Google Messages' top bar while a message is selected (a long press): close, and Copy."""
    ui = app.ui
    copy = ui.icon_button("content_copy", "Copy", lambda: _copy(app, activity, text), id="action_copy_text")
    bar = ui.app_bar("1 selected", actions=[copy], id="selection_toolbar")
    bar.children.insert(0, ui.icon_button("close", "Close", lambda: _unselect(app, activity),
                                          id="action_mode_close_button"))
    bar.padding, bar.gap = ui.pad(4, 8), ui.dp(8)
    return bar


def _select(app: Messages, activity: Activity, index: int) -> None:
    activity.state["selected"] = index
    app.phone.invalidate()


def _unselect(app: Messages, activity: Activity) -> None:
    activity.state.pop("selected", None)
    app.phone.invalidate()


def _copy(app: Messages, activity: Activity, text: str) -> None:
    app.phone.clipboard = text
    _unselect(app, activity)


def _bubbles(app: Messages, activity: Activity, conversation: Conversation | None, name: str) -> list[View]:
    ui = app.ui
    items: list[View] = []
    if conversation is None or not conversation.messages:
        return [ui.text(f"Send a message to start your conversation with {name}", size=14, align="center",
                        color=ON_SURFACE_VARIANT, padding=ui.pad(24, 16), id="empty_conversation")]
    max_width = int(app.window_size[0] * 0.72)
    previous: Message | None = None
    selected = activity.state.get("selected")
    for index, message in enumerate(conversation.messages):
        if previous is None or message.time - previous.time > timedelta(hours=1):
            items.append(ui.text(app.when(message.time, with_time=True), size=12, align="center",
                                 color=ON_SURFACE_VARIANT, padding=ui.pad(0, 16, 0, 8), id="message_status"))
        size = ui.sp(16)
        pad_h, pad_v = ui.dp(16), ui.dp(10)
        width = min(max_width, fonts.text_width(message.text, size) + 2 * pad_h + 2)
        bg = OUTGOING_BUBBLE if message.outgoing else INCOMING_BUBBLE
        bubble = View(cls="android.widget.TextView", id="message_text", text=message.text, width=width,
                      padding=(pad_h, pad_v, pad_h, pad_v), long_clickable=True, selected=index == selected,
                      on_long_click=lambda i=index: _select(app, activity, i),   # type: ignore[misc]
                      align="end" if message.outgoing else "start",
                      style=Style(kind="text", size=size, radius=ui.dp(20),
                                  bg=SELECTED_BUBBLE if index == selected else bg))
        if not message.outgoing:
            author = app.display_name(message.sender) if message.sender else name
            if message.sender and (previous is None or previous.outgoing or previous.sender != message.sender):
                # A group names who wrote above the first bubble of each of their runs, as Messages does.
                items.append(ui.text(author, size=12, color=ON_SURFACE_VARIANT, id="sender_name",
                                     padding=ui.pad(48, 4, 0, 0)))
            bubble = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(8),
                          children=[_sender(app, author), bubble])
        items.append(bubble)
        previous = message
    return items


def _sender(app: Messages, name: str) -> View:
    view = avatar(app.ui, name, size=32)
    view.align = "end"
    return view


def _stacked_from_end(app: Messages, activity: Activity, items: list[View], available: int) -> list[View]:
    """Lay the thread out like a list that stacks from the end: a short thread sits just above the
    composer, and a long one stays scrolled to the newest message unless the user scrolled up."""
    ui = app.ui
    width, gap = app.window_size[0] - ui.dp(32), ui.dp(4)
    used = sum(measure_height(v, v.width or width) for v in items) + gap * (len(items) - 1) + 2 * ui.dp(8)
    bottom = max(0, used - available)
    seen = activity.scroll.get("messages_list")
    if seen is None or seen >= activity.state.get("scroll_bottom", 0) - 2:
        activity.scroll["messages_list"] = 1 << 30  # layout clamps it to the end
    activity.state["scroll_bottom"] = bottom
    if used >= available:
        return items
    return [View(cls="android.view.View", height=available - used - gap), *items]


def _send(app: Messages, activity: Activity, number: str) -> None:
    text = activity.state.get("draft", "").strip()
    if not text:
        return
    app.send(number, text)
    activity.state["draft"] = ""
    activity.scroll["messages_list"] = 1 << 30
    app.phone.invalidate()
