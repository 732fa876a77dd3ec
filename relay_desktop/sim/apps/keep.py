"""Keep Notes (Google Keep): a staggered grid of note cards with search, and a note editor.

Notes live in :attr:`KeepNotes.notes` (newest first, as Keep lists them) so task checkers can read them.
Like Keep, the editor has no Save button: every keystroke is written to the note, so leaving by BACK or
the up arrow keeps a note with any text, and a note whose title and body are both empty does not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import dialog, keyboard_inset
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, OUTLINE_VARIANT, SURFACE, SURFACE_CONTAINER
from relay_desktop.sim.views import Style, View, measure_height

PACKAGE = "com.google.android.keep"
BROWSE = ".activities.BrowseActivity"
EDITOR = ".activities.EditorActivity"

TITLE_KEY, BODY_KEY = "editable_title", "edit_note_text"

SEED: tuple[tuple[str, str], ...] = (
    ("Packing list", "Passport\nPhone charger\nSunscreen\nSwimsuit\nHiking boots\nRain jacket"),
    ("Book ideas", "A lighthouse keeper who gets letters from the future. Each chapter is one letter, "
                   "and the last one is in her own handwriting."),
    ("Wi-Fi password for guests", "Network: Maple-Guest\nPassword: bluebird2024"),
)


@dataclass
class Note:
    id: int
    title: str
    body: str

    @property
    def empty(self) -> bool:
        return not self.title.strip() and not self.body.strip()


class KeepNotes(App):
    package = PACKAGE
    label = "Keep Notes"
    icon = "note"
    color = (251, 188, 4)
    main_activity = BROWSE
    system = False
    version_name = "5.24.462.03.90"
    version_code = 224620390
    screens = {BROWSE: "browse", EDITOR: "editor"}
    dialogs = {"delete": "delete_dialog", "rating": "rating_dialog"}

    def reset(self) -> None:
        self.notes: list[Note] = [Note(i + 1, title, body) for i, (title, body) in enumerate(SEED)]
        self.next_id = len(self.notes) + 1
        # Set by a task: the "Enjoying Keep Notes?" prompt that apps show once the user is engaged, here
        # over the first note opened rather than at launch, so it interrupts a task midway.
        self.rating_prompt = False
        self.rating_answer = ""

    # ------------------------------------------------------------ data

    def get(self, note_id: int | None) -> Note | None:
        return next((n for n in self.notes if n.id == note_id), None)

    def titled(self, title: str) -> list[Note]:
        wanted = " ".join(title.lower().split())
        return [n for n in self.notes if " ".join(n.title.lower().split()) == wanted]

    def search(self, query: str) -> list[Note]:
        """Notes whose title or text contains the query, ignoring case (Keep's search is a substring match)."""
        wanted = query.strip().lower()
        return [n for n in self.notes if wanted in n.title.lower() or wanted in n.body.lower()]

    def delete(self, note_id: int) -> None:
        self.notes = [n for n in self.notes if n.id != note_id]

    # ------------------------------------------------------------ notes grid

    def browse(self, activity: Activity) -> View:
        ui = self.ui
        query = activity.state.get("query", "")
        found = self.search(query)
        if found:
            content = self._grid(found)
        else:
            message = "No matching results" if query.strip() else "Notes you add appear here"
            content = ui.text(message, size=16, color=ON_SURFACE_VARIANT, align="center", id="empty_state",
                              padding=ui.pad(16, 96))
        field = ui.edit_text("search_notes", query, hint="Search your notes", variant="search",
                             on_change=self.field_setter(activity, "query"), id="open_search_bar_text_view")
        field.weight, field.padding = 1, ui.pad(12, 14, 8, 14)
        pill: list[View] = [ui.icon("search"), field]
        if query:
            pill.append(ui.icon_button("close", "Clear search", lambda: self._clear(activity), id="clear_search"))
        bar = View(cls="android.widget.LinearLayout", id="open_search_bar", orientation="h", children=pill,
                   height=ui.dp(56), padding=ui.pad(16, 0, 4, 0),
                   style=Style(bg=SURFACE_CONTAINER, radius=ui.dp(28)))
        # The bottom padding keeps the last card clear of the FAB when scrolled to the end.
        body = ui.column([View(cls="android.widget.FrameLayout", children=[bar], padding=ui.pad(16, 8, 16, 8)),
                          ui.scroll([content], key="notes_list", id="browse_recycler_view",
                                    padding=ui.pad(12, 4, 12, 96))])
        fab = ui.fab("add", "New note", lambda: self.open(EDITOR, focus=BODY_KEY), id="new_note_button")
        return ui.screen(None, body, fab=fab, bottom=keyboard_inset(self.phone), id="browse_activity")

    def _clear(self, activity: Activity) -> None:
        activity.state["query"] = ""
        self.phone.invalidate()

    def _grid(self, notes: list[Note]) -> View:
        """Keep's two-column staggered grid: each card goes to the column that is shorter so far."""
        ui = self.ui
        gap = ui.dp(8)
        width = (self.phone.display_size[0] - 2 * ui.dp(12) - gap) // 2
        columns: list[list[View]] = [[], []]
        heights = [0, 0]
        for note in notes:
            card = self._card(note)
            side = 0 if heights[0] <= heights[1] else 1
            columns[side].append(card)
            heights[side] += measure_height(card, width) + gap
        return View(cls="android.widget.LinearLayout", orientation="h", gap=gap, children=[
            View(cls="android.widget.LinearLayout", weight=1, gap=gap, children=cards) for cards in columns])

    def _card(self, note: Note) -> View:
        ui = self.ui
        texts: list[View] = []
        if note.title.strip():
            texts.append(ui.text(note.title, size=16, weight=500, id="index_note_title", max_lines=2))
        if note.body.strip():
            texts.append(ui.text(note.body, size=14, color=ON_SURFACE_VARIANT, id="index_note_text_description",
                                 max_lines=3))
        return View(cls="android.widget.FrameLayout", id="browse_note_interior_content", key=f"note:{note.id}",
                    children=texts, padding=ui.pad(16, 12, 16, 16), gap=ui.dp(8), clickable=True, focusable=True,
                    on_click=lambda: self.open(EDITOR, note_id=note.id),
                    style=Style(kind="card", bg=SURFACE, border=OUTLINE_VARIANT, radius=ui.dp(12)))

    # ------------------------------------------------------------ editor

    def editor(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state
        if "title" not in state:  # the drafts start from the note being edited
            note = self.get(activity.params.get("note_id"))
            state.update(note_id=note.id if note else None, title=note.title if note else "",
                         body=note.body if note else "", index=self.notes.index(note) if note else 0)
            if self.rating_prompt and note is not None:
                # An ordinary cancelable AlertDialog: BACK or a tap outside it dismisses it too.
                self.rating_prompt = False
                activity.dialog = "rating"
        delete = ui.icon_button("delete", "Delete", lambda: self.show_dialog(activity, "delete"), id="menu_delete")
        bar = ui.app_bar("", up=lambda: self._leave(activity), actions=[delete])
        title = self._field(TITLE_KEY, state["title"], "Title", 22, self._draft(activity, "title"))
        text = self._field(BODY_KEY, state["body"], "Note", 16, self._draft(activity, "body"), multiline=True)
        # Tapping the empty page under a short note puts the cursor in the note, as in Keep.
        page = ui.scroll([title, text], key="editor_scroll", id="editor_content", cls="android.widget.ScrollView",
                         padding=ui.pad(8, 0, 8, 24))
        page.clickable, page.on_click = True, lambda: self._focus_body()
        return ui.screen(bar, page, bottom=keyboard_inset(self.phone), id="editor_activity")

    def _field(self, key: str, value: str, hint: str, size: float, on_change: Callable[[str], None],
               multiline: bool = False) -> View:
        ui = self.ui
        field = ui.edit_text(key, value, hint=hint, on_change=on_change, multiline=multiline)
        # Keep's fields are bare text on the page: a "search" field filled with the page colour has no
        # outline, no underline and no floating label.
        field.style = Style(kind="search", fg=ON_SURFACE, size=ui.sp(size), weight=500 if not multiline else 400,
                            accent=field.style.accent, bg=SURFACE, radius=0)
        field.padding = ui.pad(16, 12)
        return field

    def _focus_body(self) -> None:
        self.phone.focus_key = BODY_KEY
        self.phone.keyboard_shown = True
        self.phone.invalidate()

    def _draft(self, activity: Activity, name: str) -> Callable[[str], None]:
        def set_value(value: str) -> None:
            activity.state[name] = value
            self._sync(activity)

        return set_value

    def _sync(self, activity: Activity) -> None:
        """Write the drafts to the note: create it at the first character, drop it when emptied."""
        state = activity.state
        note = self.get(state["note_id"])
        if not state["title"].strip() and not state["body"].strip():
            if note is not None:
                self.delete(note.id)
            return
        if note is None:
            if state["note_id"] is None:
                state["note_id"] = self.next_id
                self.next_id += 1
            note = Note(state["note_id"], "", "")
            self.notes.insert(min(state["index"], len(self.notes)), note)
        note.title, note.body = state["title"], state["body"]

    def _leave(self, activity: Activity) -> None:
        if self.get(activity.state.get("note_id")) is None:
            self.toast("Empty note discarded")
        self.finish()

    def rating_dialog(self, activity: Activity) -> View:
        return dialog(self.ui, "Enjoying Keep Notes?", "Tell us what you think with a quick rating on "
                      "Google Play. It only takes a moment.",
                      [("Not now", lambda: self._answer_rating(activity, "not now")),
                       ("Rate", lambda: self._answer_rating(activity, "rate"))])

    def _answer_rating(self, activity: Activity, answer: str) -> None:
        self.rating_answer = answer
        self.dismiss_dialog(activity)
        if answer == "rate":
            self.toast("Thanks for your feedback!")

    def delete_dialog(self, activity: Activity) -> View:
        return dialog(self.ui, "Delete this note?", "The note will be permanently deleted.",
                      [("Cancel", lambda: self.dismiss_dialog(activity)),
                       ("Delete", lambda: self._delete(activity))])

    def _delete(self, activity: Activity) -> None:
        note_id = activity.state.get("note_id")
        activity.dialog = None
        if isinstance(note_id, int):
            self.delete(note_id)
        self.finish()
        self.toast("Note deleted")
