"""Messages' "New conversation" screen: the To field over the contact picker, or "Send to" a typed number.

As in Google Messages, "Create group" turns the screen into a picker of several people: each picked contact,
or typed number, becomes a chip in the To field (its name, and an ✕ that removes it), and "Next" opens one
conversation with all of them. BACK there returns to the one-to-one picker.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from relay_desktop.sim import fonts
from relay_desktop.sim.apps.contacts import autofocus, avatar, digits, keyboard_inset, same_number
from relay_desktop.sim.apps.messages_store import group_key
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, OUTLINE, PRIMARY, SURFACE
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.messages import Messages

START_CHAT = ".ui.startchat.StartChatActivity"


def start_chat_screen(app: Messages, activity: Activity) -> View:
    ui = app.ui
    autofocus(activity, "recipient_text_view")
    grouping = bool(activity.state.get("group"))
    chosen: list[str] = activity.state.setdefault("chosen", [])
    query = activity.state.get("to", "")
    to = ui.edit_text("recipient_text_view", query, hint="Type a name, phone number, or email",
                      variant="search", on_change=app.field_setter(activity, "to"),
                      on_submit=lambda: _submit_recipient(app, activity))
    to.weight, to.style.bg, to.padding = 1, SURFACE, ui.pad(8, 14)
    to_row = View(cls="android.widget.LinearLayout", orientation="h", padding=ui.pad(16, 0, 8, 0),
                  children=[ui.text("To", size=16, color=ON_SURFACE_VARIANT, id="to_label", padding=ui.pad(0, 16)),
                            to])
    rows: list[View] = []
    number = query.strip()
    if looks_like_number(query):
        label, act = (f"Add {number}", lambda: _choose(app, activity, number)) if grouping else \
            (f"Send to {number}", lambda: _open_thread(app, number))
        rows.append(ui.list_item(label, leading=avatar(ui, "#"), key="send_to_number", title_id="contact_name",
                                 on_click=act))
    if not grouping and not query:
        rows.append(ui.list_item("Create group", leading=ui.icon("add", color=PRIMARY), key="create_group",
                                 title_id="contact_picker_create_group",
                                 on_click=lambda: _start_group(app, activity)))
    contacts = app.contacts_app.search(query) if app.contacts_app is not None else []
    if contacts:
        rows.append(ui.text("All contacts" if not query else "Contacts", size=14, weight=500, color=PRIMARY,
                            padding=ui.pad(16, 16, 16, 8), id="section_title"))
    for contact in contacts:
        picked = grouping and any(same_number(n, contact.phone) for n in chosen)
        act = (lambda c=contact: _toggle(app, activity, c.phone)) if grouping else \
            (lambda c=contact: _open_thread(app, c.phone))
        rows.append(ui.list_item(contact.name, contact.phone, leading=avatar(ui, contact.name),
                                 key=f"pick:{contact.id}", title_id="contact_name", selected=picked,
                                 subtitle_id="contact_destination", on_click=act))   # type: ignore[misc]
    if grouping:
        done = ui.button("Next", lambda: _open_group(app, activity), id="action_confirm_participants",
                         variant="text", enabled=bool(chosen))
        done.align = "center"
        bar = ui.app_bar("New group", up=lambda: _leave_group(app, activity), actions=[done])
        head = [*_chip_rows(app, activity, chosen), to_row]
    else:
        bar = ui.app_bar("New conversation", up=app.finish)
        head = [to_row]
    body = ui.column([*head, ui.divider(),
                      ui.scroll(rows, key="contact_picker_list", id="contact_picker_list")])
    return ui.screen(bar, body, bottom=keyboard_inset(app.phone), id="start_chat_view")


def back_in_start_chat(app: Messages, activity: Activity) -> bool:
    """BACK while making a group returns to the one-to-one picker, dropping the people chosen."""
    if not activity.state.get("group"):
        return False
    _leave_group(app, activity)
    return True


def looks_like_number(text: str) -> bool:
    return len(digits(text)) >= 3 and re.fullmatch(r"[\d\s()+\-.]+", text.strip()) is not None


def _chip_rows(app: Messages, activity: Activity, chosen: list[str]) -> list[View]:
    """The chosen people as chips above the To field, wrapped onto as many lines as they need."""
    ui = app.ui
    room = app.window_size[0] - ui.dp(32)
    lines: list[list[View]] = []
    used = room
    for number in chosen:
        chip = _chip(app, activity, number)
        if used + ui.dp(8) + (chip.width or 0) > room:
            lines.append([])
            used = -ui.dp(8)
        lines[-1].append(chip)
        used += ui.dp(8) + (chip.width or 0)
    return [View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(8), children=line,
                 padding=ui.pad(16, 8, 16, 0)) for line in lines]


def _chip(app: Messages, activity: Activity, number: str) -> View:
    ui = app.ui
    name = app.display_name(number)
    size = ui.sp(14)
    label = View(cls="android.widget.TextView", id="recipient_chip_name", text=name, align="center",
                 width=fonts.text_width(name, size, 500) + 2,
                 style=Style(kind="text", size=size, weight=500, fg=ON_SURFACE, max_lines=1))
    remove = ui.icon_button("close", f"Remove {name}", lambda: _unchoose(app, activity, number),
                            id="recipient_chip_remove")
    remove.width = remove.height = ui.dp(32)
    return View(cls="android.widget.LinearLayout", id="recipient_chip", orientation="h", height=ui.dp(32),
                width=(label.width or 0) + ui.dp(12 + 32), padding=ui.pad(12, 0, 0, 0), children=[label, remove],
                style=Style(kind="chip", radius=ui.dp(8), border=OUTLINE))


def _start_group(app: Messages, activity: Activity) -> None:
    activity.state.update(group=True, chosen=[], to="")
    app.phone.invalidate()


def _leave_group(app: Messages, activity: Activity) -> None:
    activity.state.update(group=False, chosen=[], to="")
    app.phone.invalidate()


def _choose(app: Messages, activity: Activity, number: str) -> None:
    chosen: list[str] = activity.state.setdefault("chosen", [])
    if not any(same_number(n, number) for n in chosen):
        chosen.append(number)
    activity.state["to"] = ""        # the field empties for the next person, as a chip takes the name
    app.phone.invalidate()


def _unchoose(app: Messages, activity: Activity, number: str) -> None:
    activity.state["chosen"] = [n for n in activity.state.get("chosen", []) if n != number]
    app.phone.invalidate()


def _toggle(app: Messages, activity: Activity, number: str) -> None:
    """A picked contact tapped again in the list is taken off, as its highlighted row suggests."""
    chosen = activity.state.get("chosen", [])
    already = next((n for n in chosen if same_number(n, number)), None)
    if already is not None:
        _unchoose(app, activity, already)
    else:
        _choose(app, activity, number)


def _submit_recipient(app: Messages, activity: Activity) -> None:
    query = activity.state.get("to", "").strip()
    matches = app.contacts_app.search(query) if app.contacts_app is not None and query else []
    target = matches[0].phone if len(matches) == 1 else query if looks_like_number(query) else None
    if target is None:
        return
    if activity.state.get("group"):
        _choose(app, activity, target)
    else:
        _open_thread(app, target)


def _open_group(app: Messages, activity: Activity) -> None:
    chosen = activity.state.get("chosen", [])
    if chosen:
        _open_thread(app, group_key(chosen))


def _open_thread(app: Messages, number: str) -> None:
    app.finish()  # back from the new thread goes to the conversation list, not to the picker
    app.open_thread(number)
