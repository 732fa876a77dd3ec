"""Messages' "New conversation" screen: the To field over the contact picker, or "Send to" a typed number."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from relay_desktop.sim.apps.contacts import autofocus, avatar, digits, keyboard_inset
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, PRIMARY, SURFACE
from relay_desktop.sim.views import View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.messages import Messages

START_CHAT = ".ui.startchat.StartChatActivity"


def start_chat_screen(app: Messages, activity: Activity) -> View:
    ui = app.ui
    autofocus(activity, "recipient_text_view")
    query = activity.state.get("to", "")
    to = ui.edit_text("recipient_text_view", query, hint="Type a name, phone number, or email",
                      variant="search", on_change=app.field_setter(activity, "to"),
                      on_submit=lambda: _submit_recipient(app, activity))
    to.weight, to.style.bg, to.padding = 1, SURFACE, ui.pad(8, 14)
    to_row = View(cls="android.widget.LinearLayout", orientation="h", padding=ui.pad(16, 0, 8, 0),
                  children=[ui.text("To", size=16, color=ON_SURFACE_VARIANT, id="to_label", padding=ui.pad(0, 16)),
                            to])
    rows: list[View] = []
    if looks_like_number(query):
        rows.append(ui.list_item(f"Send to {query.strip()}", leading=avatar(ui, "#"), key="send_to_number",
                                 title_id="contact_name", on_click=lambda: _open_thread(app, query.strip())))
    contacts = app.contacts_app.search(query) if app.contacts_app is not None else []
    if contacts:
        rows.append(ui.text("All contacts" if not query else "Contacts", size=14, weight=500, color=PRIMARY,
                            padding=ui.pad(16, 16, 16, 8), id="section_title"))
    for contact in contacts:
        rows.append(ui.list_item(contact.name, contact.phone, leading=avatar(ui, contact.name),
                                 key=f"pick:{contact.id}", title_id="contact_name",
                                 subtitle_id="contact_destination",
                                 on_click=lambda c=contact: _open_thread(app, c.phone)))
    bar = ui.app_bar("New conversation", up=app.finish)
    body = ui.column([to_row, ui.divider(), ui.scroll(rows, key="contact_picker_list", id="contact_picker_list")])
    return ui.screen(bar, body, bottom=keyboard_inset(app.phone), id="start_chat_view")


def looks_like_number(text: str) -> bool:
    return len(digits(text)) >= 3 and re.fullmatch(r"[\d\s()+\-.]+", text.strip()) is not None


def _submit_recipient(app: Messages, activity: Activity) -> None:
    query = activity.state.get("to", "").strip()
    matches = app.contacts_app.search(query) if app.contacts_app is not None and query else []
    if len(matches) == 1:
        _open_thread(app, matches[0].phone)
    elif looks_like_number(query):
        _open_thread(app, query)


def _open_thread(app: Messages, number: str) -> None:
    app.finish()  # back from the new thread goes to the conversation list, not to the picker
    app.open_thread(number)
