"""Keep Notes (Google Keep): a staggered grid of note cards with search, labels and a note editor.

Notes live in :attr:`KeepNotes.notes` (newest first, as Keep lists them) so task checkers can read them.
Like Keep, the editor has no Save button: every keystroke is written to the note, so leaving by BACK or
the up arrow keeps a note with any text, and a note whose title and body are both empty does not exist.
The grid itself (the navigation drawer with its labels, selecting several cards) is in
:mod:`relay_desktop.sim.apps.keep_browse`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from relay_desktop.sim.app import Activity
from relay_desktop.sim.apps.contacts import dialog, keyboard_inset
from relay_desktop.sim.apps.keep_browse import KeepBrowse
from relay_desktop.sim.ui import ON_SURFACE, SURFACE
from relay_desktop.sim.views import Style, View

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
    labels: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.title.strip() and not self.body.strip()


class KeepNotes(KeepBrowse):
    package = PACKAGE
    label = "Keep Notes"
    icon = "note"
    color = (251, 188, 4)
    main_activity = BROWSE
    system = False
    version_name = "5.24.462.03.90"
    version_code = 224620390
    screens = {BROWSE: "browse", EDITOR: "editor"}
    dialogs = {"delete": "delete_dialog", "rating": "rating_dialog", "selection_menu": "selection_menu",
               "delete_selected": "delete_selected_dialog"}
    editor_activity = EDITOR
    body_key = BODY_KEY

    def reset(self) -> None:
        self.notes: list[Note] = [Note(i + 1, title, body) for i, (title, body) in enumerate(SEED)]
        self.next_id = len(self.notes) + 1
        self.labels: list[str] = []     # every label the user made, used by a note or not (Keep's drawer order)
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

    def labelled(self, label: str) -> list[Note]:
        return [n for n in self.notes if label in n.labels]

    def search(self, query: str) -> list[Note]:
        """Notes whose title or text contains the query, ignoring case (Keep's search is a substring match)."""
        wanted = query.strip().lower()
        return [n for n in self.notes if wanted in n.title.lower() or wanted in n.body.lower()]

    def add(self, title: str, body: str, labels: Iterable[str] = ()) -> Note:
        """A note older than every note so far (the last card of the grid), with ``labels`` made as needed."""
        note = Note(self.next_id, title, body, list(labels))
        self.next_id += 1
        self.notes.append(note)
        self.labels += [label for label in note.labels if label not in self.labels]
        return note

    def delete(self, note_id: int) -> None:
        self.notes = [n for n in self.notes if n.id != note_id]

    def copy(self, note_id: int) -> Note | None:
        """Keep's "Make a copy": a new note with the same title, text and labels, first in the grid."""
        note = self.get(note_id)
        if note is None:
            return None
        twin = Note(self.next_id, note.title, note.body, list(note.labels))
        self.next_id += 1
        self.notes.insert(0, twin)
        return twin

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
        page_items = [title, text]
        labels = self._labels_of(activity)
        if labels:
            chips = self.label_chips(labels)
            chips.padding = ui.pad(16, 8)
            page_items.append(chips)
        # Tapping the empty page under a short note puts the cursor in the note, as in Keep.
        page = ui.scroll(page_items, key="editor_scroll", id="editor_content", cls="android.widget.ScrollView",
                         padding=ui.pad(8, 0, 8, 24))
        page.clickable, page.on_click = True, lambda: self._focus_body()
        return ui.screen(bar, page, bottom=keyboard_inset(self.phone), id="editor_activity")

    def _labels_of(self, activity: Activity) -> list[str]:
        note = self.get(activity.state.get("note_id"))
        return note.labels if note is not None else list(activity.params.get("labels", ()))

    def _field(self, key: str, value: str, hint: str, size: float, on_change: Callable[[str], None],
               multiline: bool = False) -> View:
        ui = self.ui
        field_view = ui.edit_text(key, value, hint=hint, on_change=on_change, multiline=multiline)
        # Keep's fields are bare text on the page: a "search" field filled with the page colour has no
        # outline, no underline and no floating label.
        field_view.style = Style(kind="search", fg=ON_SURFACE, size=ui.sp(size),
                                 weight=500 if not multiline else 400, accent=field_view.style.accent, bg=SURFACE,
                                 radius=0)
        field_view.padding = ui.pad(16, 12)
        return field_view

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
            # A note started inside a label's view carries that label, as in Keep.
            note = Note(state["note_id"], "", "", list(activity.params.get("labels", ())))
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
