"""Contacts (Google Contacts): an alphabetical list with search, contact details and the editor.

Contacts live in :attr:`Contacts.contacts` (task checkers read them; Messages looks names up there).
Phone numbers are stored exactly as typed; :func:`same_number` compares them the way the telephony
stack does, by digits. A few helpers here (keyboard inset, autofocus, dialog ids) are shared with the
Messages and Chrome apps.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relay_desktop.sim import keyboard
from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.ui import ERROR, ON_SURFACE_VARIANT, PRIMARY, PRIMARY_CONTAINER, SURFACE_CONTAINER, Kit
from relay_desktop.sim.views import Color, Style, View

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from relay_desktop.sim.phone import VirtualPhone

PACKAGE = "com.google.android.contacts"
PEOPLE = "com.android.contacts.activities.PeopleActivity"
DETAILS = "com.android.contacts.quickcontact.QuickContactActivity"
EDITOR = "com.android.contacts.activities.ContactEditorActivity"

SEED: tuple[tuple[str, str, str], ...] = (
    ("Amara", "Okafor", "555-0131"), ("Bob", "Martinez", "555-0142"), ("Carol", "Nguyen", "555-0187"),
    ("Dave", "Kim", "555-0119"), ("Elena", "Petrova", "555-0163"), ("Frank", "Osei", "555-0128"),
    ("Grace", "Liu", "555-0175"), ("Hannah", "Schmidt", "555-0104"), ("Ivan", "Horvat", "555-0156"),
    ("Julia", "Rossi", "555-0139"), ("Kenji", "Watanabe", "555-0181"), ("Maya", "Patel", "555-0112"),
    ("Omar", "Haddad", "555-0194"), ("Sofia", "Garcia", "555-0148"), ("Tom", "Becker", "555-0170"),
    ("Zoe", "Adams", "555-0123"),
)
# Letter-avatar colours (background, letter), picked per name like Google's monogram palette.
AVATAR_COLORS: tuple[tuple[Color, Color], ...] = (
    ((211, 227, 253), (4, 30, 73)), ((196, 238, 208), (7, 39, 17)), ((255, 222, 164), (38, 25, 0)),
    ((255, 218, 214), (65, 0, 2)), ((232, 222, 248), (29, 25, 43)), ((194, 232, 240), (0, 31, 37)),
)


# ---------------------------------------------------------------- helpers shared with Messages and Chrome

def with_class_aliases(screens: dict[str, str]) -> dict[str, str]:
    """``screens`` plus a dotted alias of each fully qualified activity name. The phone resolves
    ``am start -n pkg/com.other.Cls`` to ``.com.other.Cls``; the aliases keep those starts working
    (real apps such as Chrome and Contacts live in classes outside their package)."""
    return {**screens, **{"." + name: method for name, method in screens.items() if not name.startswith(".")}}


def digits(number: str) -> str:
    return re.sub(r"\D", "", number)


def folded(text: str) -> str:
    """Lower case without accents ("Jörg" -> "jorg", "Weiß" -> "weiss"), as Contacts' search matches names."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def same_number(a: str, b: str) -> bool:
    """Whether two numbers reach the same phone: equal digits, or one ends with the other's last 7+
    (so "+1 555-0142" and "5550142" match, as PhoneNumberUtils.compare does loosely). Several numbers
    ("555-0142;555-0187", a group's recipients) are no one number, however their digits end."""
    if any(sep in a or sep in b for sep in ";,"):
        return False
    da, db = digits(a), digits(b)
    if not da or not db:
        return False
    short, long = sorted((da, db), key=len)
    return da == db or (len(short) >= 7 and long.endswith(short))


def avatar(ui: Kit, name: str, size: float = 40) -> View:
    background, letter = AVATAR_COLORS[sum(map(ord, name)) % len(AVATAR_COLORS)]
    view = ui.avatar(name, color=background, size=size)
    view.style.fg = letter
    view.style.size = ui.sp(size * 0.45)
    return view


@functools.lru_cache(maxsize=8)
def _keyboard_height(width: int) -> int:
    return keyboard.keyboard(width, 0, lambda _key: None)[1].height


def keyboard_inset(phone: VirtualPhone) -> View | None:
    """Space the keyboard takes while shown. The phone does not resize app windows for the IME, so
    screens with text fields add this at the bottom to behave like ``adjustResize`` activities."""
    if not phone.keyboard_shown:
        return None
    return View(cls="android.view.View", height=_keyboard_height(phone.display_size[0]))


def autofocus(activity: Activity, key: str) -> None:
    """Focus a field (and show the keyboard) the first time a screen is built, as activities that
    request focus in onCreate do; navigation clears focus, so it cannot be set before the screen opens."""
    if not activity.state.get("autofocused"):
        activity.state["autofocused"] = True
        activity.app.phone.focus_key = key
        activity.app.phone.keyboard_shown = True


def open_focused(app: App, name: str, key: str, **params: Any) -> None:
    """Open an activity with ``key`` focused and the keyboard up, as a screen that requests focus does."""
    app.open(name, focus=key, **params)


def dialog(ui: Kit, title: str, message: str, buttons: Sequence[tuple[str, Callable[[], None]]]) -> View:
    """An AlertDialog with ``buttons`` in on-screen order (positive last)."""
    return ui.dialog(title, message, buttons)


def popup_menu(ui: Kit, items: Sequence[tuple[str, Callable[[], None]]]) -> View:
    """An overflow menu under the app bar's right end (shown through the dialog mechanism)."""
    rows = [View(cls="android.widget.LinearLayout", key=f"menu:{label}", clickable=True, focusable=True,
                 on_click=action, height=ui.dp(48), padding=ui.pad(16, 0),
                 children=[ui.text(label, id="title", max_lines=1)], justify="center")
            for label, action in items]
    return View(cls="android.widget.ListView", id="android:id/list", anchor="top_end", margin=ui.dp(8),
                width=ui.dp(200), padding=ui.pad(0, 8), children=rows,
                style=Style(kind="card", bg=SURFACE_CONTAINER, radius=ui.dp(4)))


# ---------------------------------------------------------------- the app

@dataclass
class Contact:
    id: int
    first: str
    last: str
    phone: str
    starred: bool = False

    @property
    def name(self) -> str:
        return " ".join(part for part in (self.first, self.last) if part)


class Contacts(App):
    package = PACKAGE
    label = "Contacts"
    icon = "person"
    color = (26, 115, 232)
    main_activity = PEOPLE
    version_name = "4.22.37.586680692"
    version_code = 4223758
    screens = with_class_aliases({PEOPLE: "people", DETAILS: "details", EDITOR: "editor"})
    dialogs = {"overflow": "overflow_menu", "delete": "delete_dialog"}

    def reset(self) -> None:
        self.contacts: list[Contact] = [Contact(i + 1, *row) for i, row in enumerate(SEED)]
        self.next_id = len(self.contacts) + 1
        self.calls: list[str] = []          # numbers dialled from the app, newest last

    def resolve_intent(self, action: str | None, data: str | None) -> tuple[str, dict[str, Any]] | None:
        if action == "android.intent.action.INSERT" and (data or "").startswith(("content://contacts",
                                                                                "content://com.android.contacts")):
            return EDITOR, {}
        return None

    # ------------------------------------------------------------ data

    def sorted_contacts(self) -> list[Contact]:
        return sorted(self.contacts, key=lambda c: (folded(c.name), c.id))

    def get(self, contact_id: int | None) -> Contact | None:
        return next((c for c in self.contacts if c.id == contact_id), None)

    def named(self, name: str) -> list[Contact]:
        wanted = " ".join(name.lower().split())
        return [c for c in self.contacts if " ".join(c.name.lower().split()) == wanted]

    def by_number(self, number: str) -> Contact | None:
        return next((c for c in self.sorted_contacts() if same_number(c.phone, number)), None)

    def search(self, query: str) -> list[Contact]:
        """Contacts whose name has a word starting with each query word (accents ignored), or whose number
        has its digits."""
        words, wanted = folded(query).split(), digits(query)
        found = []
        for contact in self.sorted_contacts():
            name_words = folded(contact.name).split()
            by_name = all(any(w.startswith(q) for w in name_words) for q in words)
            by_number = bool(wanted) and not re.search(r"[a-z]", query.lower()) and wanted in digits(contact.phone)
            if by_name or by_number:
                found.append(contact)
        return found

    def add(self, first: str, last: str, phone: str) -> Contact:
        contact = Contact(self.next_id, first, last, phone)
        self.next_id += 1
        self.contacts.append(contact)
        return contact

    def delete(self, contact_id: int) -> None:
        self.contacts = [c for c in self.contacts if c.id != contact_id]

    # ------------------------------------------------------------ contact list

    def people(self, activity: Activity) -> View:
        ui = self.ui
        query = activity.state.get("query", "")
        rows: list[View] = []
        previous = ""
        for contact in self.search(query):
            letter = contact.name[:1].upper()
            rows.append(self._row(contact, letter if letter != previous else ""))
            previous = letter
        if not rows:
            rows.append(ui.text("No contacts found", size=16, color=ON_SURFACE_VARIANT, align="center",
                                id="empty_list_view", padding=ui.pad(16, 48)))
        field = ui.edit_text("search_contacts", query, hint="Search contacts", variant="search",
                             on_change=self.field_setter(activity, "query"), id="open_search_bar_text_view")
        field.weight, field.style.bg, field.padding = 1, SURFACE_CONTAINER, ui.pad(12, 14, 8, 14)
        pill: list[View] = [ui.icon("search"), field]
        if query:
            pill.append(ui.icon_button("close", "Clear search", lambda: self._clear(activity), id="clear"))
        bar = View(cls="android.widget.LinearLayout", id="open_search_bar", orientation="h", children=pill,
                   height=ui.dp(56), padding=ui.pad(16, 0, 4, 0), style=Style(bg=SURFACE_CONTAINER,
                                                                                radius=ui.dp(28)))
        body = ui.column([View(cls="android.widget.FrameLayout", children=[bar], padding=ui.pad(16, 8, 16, 8)),
                          ui.scroll(rows, key="contact_list", padding=ui.pad(0, 0, 0, 88))])
        fab = ui.fab("add", "Create contact", lambda: open_focused(self, EDITOR, "first_name"),
                     id="floating_action_button")
        return ui.screen(None, body, fab=fab, bottom=keyboard_inset(self.phone), id="people_container")

    def _clear(self, activity: Activity) -> None:
        activity.state["query"] = ""
        self.phone.invalidate()

    def _row(self, contact: Contact, letter: str) -> View:
        ui = self.ui
        gutter = ui.text(letter, size=16, weight=500, color=PRIMARY, align="center", id="section_header")
        gutter.width = ui.dp(16)
        leading = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(16),
                       children=[gutter, avatar(ui, contact.name)])
        row = ui.list_item(contact.name, leading=leading, title_id="cliv_name_textview", key=f"contact:{contact.id}",
                           on_click=lambda: self.open(DETAILS, contact_id=contact.id))
        row.padding = ui.pad(16, 8, 24, 8)
        return row

    # ------------------------------------------------------------ contact details

    def details(self, activity: Activity) -> View:
        ui = self.ui
        contact = self.get(activity.params.get("contact_id"))
        if contact is None:
            gone = ui.text("This contact no longer exists", color=ON_SURFACE_VARIANT, align="center",
                           padding=ui.pad(16, 48))
            return ui.screen(ui.app_bar("", up=self.finish), ui.column([gone]))
        star = ui.icon_button("star", "Remove from favourites" if contact.starred else "Add to favourites",
                              lambda: self._toggle_star(contact), id="menu_star",
                              color=PRIMARY if contact.starred else ON_SURFACE_VARIANT)
        actions = [star, ui.icon_button("edit", "Edit contact", lambda: self._edit(contact), id="menu_edit"),
                   ui.icon_button("more_vert", "More options", lambda: self.show_dialog(activity, "overflow"),
                                  id="menu_overflow")]
        bar = ui.app_bar("", up=self.finish, actions=actions)
        header = [
            avatar(ui, contact.name, size=112),
            ui.text(contact.name, size=28, align="center", id="large_title", padding=ui.pad(16, 16, 16, 0)),
            View(cls="android.widget.LinearLayout", orientation="h", padding=ui.pad(24, 24, 24, 8), children=[
                self._action("Call", "phone", lambda: self._call(contact)),
                self._action("Text", "message", lambda: self._text(contact)),
                self._action("Edit", "edit", lambda: self._edit(contact)),
            ]),
        ]
        number_row = ui.list_item(contact.phone, "Mobile", leading=ui.icon("phone"), title_id="header",
                                  subtitle_id="sub_header", key="phone_entry", on_click=lambda: self._call(contact),
                                  trailing=ui.icon_button("message", f"Text {contact.phone}",
                                                          lambda: self._text(contact), id="icon_alternate"))
        number_row.padding = ui.pad(16, 8, 8, 8)
        info = ui.card([ui.text("Contact info", size=16, weight=500, padding=ui.pad(16, 0)), number_row],
                       id="communication_card", padding=0, gap=4)
        info.padding = ui.pad(0, 16, 0, 8)
        body = ui.scroll([*header, View(cls="android.widget.FrameLayout", children=[info],
                                        padding=ui.pad(16, 8))], key="quick_contact_scroll",
                         cls="android.widget.ScrollView", padding=ui.pad(0, 16, 0, 16))
        return ui.screen(bar, body, id="quick_contact")

    def _action(self, label: str, icon: str, on_click: Callable[[], None]) -> View:
        ui = self.ui
        bubble = View(cls="android.widget.ImageView", width=ui.dp(56), height=ui.dp(56), align="center",
                      style=Style(kind="icon_button", icon=icon, bg=PRIMARY_CONTAINER, fg=(4, 30, 73)))
        return View(cls="android.widget.LinearLayout", id=f"{label.lower()}_button", weight=1, gap=ui.dp(8),
                    clickable=True, focusable=True, on_click=on_click, padding=ui.pad(0, 4),
                    children=[bubble, ui.text(label, size=14, weight=500, align="center")])

    def _toggle_star(self, contact: Contact) -> None:
        contact.starred = not contact.starred
        self.phone.invalidate()

    def _call(self, contact: Contact) -> None:
        self.calls.append(contact.phone)
        self.toast(f"Calling {contact.name}…")

    def _text(self, contact: Contact) -> None:
        self.phone.start_intent("android.intent.action.SENDTO", f"smsto:{contact.phone}", None)
        self.phone.windows()  # builds Messages' thread now, so its compose field has focus before any typing

    def _edit(self, contact: Contact) -> None:
        self.open(EDITOR, contact_id=contact.id)

    def overflow_menu(self, activity: Activity) -> View:
        return popup_menu(self.ui, [("Delete", lambda: self.show_dialog(activity, "delete")),
                                    ("Share", lambda: self.dismiss_dialog(activity))])

    def delete_dialog(self, activity: Activity) -> View:
        contact = self.get(activity.params.get("contact_id"))
        name = contact.name if contact else "This contact"
        return dialog(self.ui, "Delete this contact?", f"{name} will be permanently deleted from this device.",
                      [("Cancel", lambda: self.dismiss_dialog(activity)),
                       ("Delete", lambda: self._delete(activity))])

    def _delete(self, activity: Activity) -> None:
        contact_id = activity.params.get("contact_id")
        activity.dialog = None
        if isinstance(contact_id, int):
            self.delete(contact_id)
        self.finish()
        self.toast("Contact deleted")

    # ------------------------------------------------------------ editor

    def editor(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state
        contact = self.get(activity.params.get("contact_id"))
        if "first" not in state:  # the drafts start from the contact being edited
            state.update(first=contact.first if contact else "", last=contact.last if contact else "",
                         phone=contact.phone if contact else "")
        if contact is None:
            autofocus(activity, "first_name")
        save = ui.button("Save", lambda: self._save(activity), id="toolbar_button")
        save.height, save.align = ui.dp(40), "center"
        bar = ui.app_bar("Edit contact" if contact else "Create contact", up=self.finish, actions=[save])
        up = bar.children[0]
        up.style.icon, up.desc, up.id = "close", "Cancel", "nav_back_icon"
        bar.children[1].style.size = ui.sp(20)
        bar.padding = ui.pad(4, 8, 16, 8)

        def field(name: str, key: str, hint: str) -> View:
            return ui.edit_text(key, state[name], hint=hint, on_change=self._draft(activity, name))

        names: list[View] = [field("first", "first_name", "First name"), field("last", "last_name", "Last name")]
        if state.get("error"):
            names.append(ui.text(state["error"], size=12, color=ERROR, id="error_text", padding=ui.pad(16, 0)))
        photo = View(cls="android.widget.ImageView", id="photo", desc="Add contact photo", width=ui.dp(112),
                     height=ui.dp(112), align="center", style=Style(kind="icon_button", bg=PRIMARY_CONTAINER,
                                                                    fg=(4, 30, 73), icon="camera"))
        body = ui.scroll([
            photo,
            ui.text("Add picture", size=14, weight=500, color=PRIMARY, align="center", padding=ui.pad(0, 8, 0, 16)),
            self._field_row("person", ui.column(names, gap=16)),
            self._field_row("phone", field("phone", "phone", "Phone")),
        ], key="editor_scroll", cls="android.widget.ScrollView", gap=16, padding=ui.pad(0, 16, 16, 16))
        return ui.screen(bar, body, bottom=keyboard_inset(self.phone), id="editor_view")

    def _field_row(self, icon: str, content: View) -> View:
        ui = self.ui
        content.weight = 1
        glyph = View(cls="android.widget.FrameLayout", width=ui.dp(56), height=ui.dp(56), align="start",
                     children=[ui.icon(icon)], justify="center")
        return View(cls="android.widget.LinearLayout", orientation="h", children=[glyph, content])

    def _draft(self, activity: Activity, name: str) -> Callable[[str], None]:
        def set_value(value: str) -> None:
            activity.state[name] = value
            activity.state.pop("error", None)

        return set_value

    def _save(self, activity: Activity) -> None:
        state = activity.state
        first, last = (" ".join(state.get(k, "").split()) for k in ("first", "last"))
        phone = state.get("phone", "").strip()  # kept as typed: "(555) 010-0100" stays that way
        if not first and not last:
            state["error"] = "Enter a first or last name to save this contact"
            self.phone.invalidate()
            return
        contact = self.get(activity.params.get("contact_id"))
        if contact is not None:
            contact.first, contact.last, contact.phone = first, last, phone
            self.finish()
            return
        created = self.add(first, last, phone)
        self.finish()
        self.open(DETAILS, contact_id=created.id)
