"""Keep Notes' grid of note cards: search, the navigation drawer with the user's labels, a label's own view,
and selecting several cards at once (long press) to delete or copy them together.

As in Keep, the drawer slides over the grid from the left (a tap on the dimmed rest of the screen or BACK
closes it), and while it is open the grid behind it is hidden from accessibility, so the dump shows only
the drawer. A long press on a card starts a selection; taps then add or remove cards, and the app bar
becomes the selection's bar (close, the count, "More options").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import dialog, keyboard_inset, popup_menu
from relay_desktop.sim.ui import (
    ON_SURFACE,
    ON_SURFACE_VARIANT,
    OUTLINE_VARIANT,
    PRIMARY,
    PRIMARY_CONTAINER,
    SURFACE,
    SURFACE_CONTAINER,
)
from relay_desktop.sim.views import Style, View, measure_height

if TYPE_CHECKING:
    from relay_desktop.sim.apps.keep import Note

NOTES_VIEW = ""     # the drawer's "Notes": every note; any other value of the view is a label's name


class KeepBrowse(App):
    """The browse activity of :class:`~relay_desktop.sim.apps.keep.KeepNotes` (which supplies the data)."""

    editor_activity: ClassVar[str]
    body_key: ClassVar[str]
    notes: list[Note]
    labels: list[str]

    if TYPE_CHECKING:
        def search(self, query: str) -> list[Note]: ...
        def delete(self, note_id: int) -> None: ...
        def copy(self, note_id: int) -> Note | None: ...

    # ------------------------------------------------------------ the screen

    def browse(self, activity: Activity) -> View:
        state = activity.state
        if state.get("drawer"):
            return self._drawer(activity)
        view_label = state.get("view", NOTES_VIEW)
        query = state.get("query", "") if view_label == NOTES_VIEW else ""
        shown = self.search(query) if view_label == NOTES_VIEW else [n for n in self.notes if view_label in n.labels]
        ui = self.ui
        if shown:
            content = self._grid(activity, shown)
        else:
            message = ("No matching results" if query.strip() else "Notes with this label appear here"
                       if view_label else "Notes you add appear here")
            content = ui.text(message, size=16, color=ON_SURFACE_VARIANT, align="center", id="empty_state",
                              padding=ui.pad(16, 96))
        if state.get("selected"):
            top = self._selection_bar(activity)
        elif view_label:
            top = self._label_bar(activity, view_label)
        else:
            top = self._search_bar(activity, query)
        # The bottom padding keeps the last card clear of the FAB when scrolled to the end.
        body = ui.column([top, ui.scroll([content], key="notes_list", id="browse_recycler_view",
                                         padding=ui.pad(12, 4, 12, 96))])
        labels = (view_label,) if view_label else ()
        fab = ui.fab("add", "New note", lambda: self.open(self.editor_activity, focus=self.body_key, labels=labels),
                     id="new_note_button")
        return ui.screen(None, body, fab=fab, bottom=keyboard_inset(self.phone), id="browse_activity")

    def on_back(self, activity: Activity) -> bool:
        """BACK closes the drawer, then ends a selection, then leaves a label's view for all notes."""
        state = activity.state
        for key, idle in (("drawer", False), ("selected", []), ("view", NOTES_VIEW)):
            if state.get(key, idle) != idle:
                state[key] = idle
                return True
        return False

    def _search_bar(self, activity: Activity, query: str) -> View:
        ui = self.ui
        field = ui.edit_text("search_notes", query, hint="Search your notes", variant="search",
                             on_change=self.field_setter(activity, "query"), id="open_search_bar_text_view")
        field.weight, field.padding = 1, ui.pad(4, 14, 8, 14)
        pill: list[View] = [self._drawer_button(activity), field]
        if query:
            pill.append(ui.icon_button("close", "Clear search", lambda: self._set(activity, query=""),
                                       id="clear_search"))
        bar = View(cls="android.widget.LinearLayout", id="open_search_bar", orientation="h", children=pill,
                   height=ui.dp(56), padding=ui.pad(4, 0, 4, 0), style=Style(bg=SURFACE_CONTAINER, radius=ui.dp(28)))
        return View(cls="android.widget.FrameLayout", children=[bar], padding=ui.pad(16, 8, 16, 8))

    def _drawer_button(self, activity: Activity) -> View:
        return self.ui.icon_button("menu", "Open navigation drawer", lambda: self._set(activity, drawer=True),
                                   id="drawer_button")

    def _label_bar(self, activity: Activity, label: str) -> View:
        bar = self.ui.app_bar(label)
        bar.children.insert(0, self._drawer_button(activity))
        bar.padding = self.ui.pad(4, 8)
        return bar

    def _set(self, activity: Activity, **values: object) -> None:
        activity.state.update(values)
        self.phone.invalidate()

    # ------------------------------------------------------------ cards

    def _grid(self, activity: Activity, notes: list[Note]) -> View:
        """Keep's two-column staggered grid: each card goes to the column that is shorter so far."""
        ui = self.ui
        gap = ui.dp(8)
        width = (self.window_size[0] - 2 * ui.dp(12) - gap) // 2
        columns: list[list[View]] = [[], []]
        heights = [0, 0]
        selected = activity.state.get("selected", [])
        for note in notes:
            card = self._card(activity, note, note.id in selected)
            side = 0 if heights[0] <= heights[1] else 1
            columns[side].append(card)
            heights[side] += measure_height(card, width) + gap
        return View(cls="android.widget.LinearLayout", orientation="h", gap=gap, children=[
            View(cls="android.widget.LinearLayout", weight=1, gap=gap, children=cards) for cards in columns])

    def _card(self, activity: Activity, note: Note, selected: bool) -> View:
        ui = self.ui
        texts: list[View] = []
        if note.title.strip():
            texts.append(ui.text(note.title, size=16, weight=500, id="index_note_title", max_lines=2))
        if note.body.strip():
            texts.append(ui.text(note.body, size=14, color=ON_SURFACE_VARIANT, id="index_note_text_description",
                                 max_lines=3))
        if note.labels:
            texts.append(self.label_chips(note.labels))
        return View(cls="android.widget.FrameLayout", id="browse_note_interior_content", key=f"note:{note.id}",
                    children=texts, padding=ui.pad(16, 12, 16, 16), gap=ui.dp(8), clickable=True, focusable=True,
                    long_clickable=True, selected=selected, on_click=lambda: self._tap_card(activity, note.id),
                    on_long_click=lambda: self._toggle(activity, note.id),
                    style=Style(kind="card", bg=SURFACE, border=PRIMARY if selected else OUTLINE_VARIANT,
                                radius=ui.dp(12)))

    def label_chips(self, labels: list[str]) -> View:
        """A note's labels as Keep shows them under its text: small grey chips that only name the label."""
        ui = self.ui
        chips = [View(cls="android.widget.TextView", id="note_label", text=label, height=ui.dp(24),
                      padding=ui.pad(8, 0), style=Style(kind="chip", size=ui.sp(12), weight=500, radius=ui.dp(6),
                                                        align="center", bg=SURFACE_CONTAINER))
                 for label in labels]
        return View(cls="android.widget.LinearLayout", id="note_labels", orientation="h", gap=ui.dp(6),
                    children=chips)

    def _tap_card(self, activity: Activity, note_id: int) -> None:
        if activity.state.get("selected"):
            self._toggle(activity, note_id)
        else:
            self.open(self.editor_activity, note_id=note_id)

    def _toggle(self, activity: Activity, note_id: int) -> None:
        selected = list(activity.state.get("selected", []))
        if note_id in selected:
            selected.remove(note_id)
        else:
            selected.append(note_id)
        self._set(activity, selected=selected)

    # ------------------------------------------------------------ several cards at once

    def _selection_bar(self, activity: Activity) -> View:
        ui = self.ui
        count = len(activity.state["selected"])
        close = ui.icon_button("close", "Done", lambda: self._set(activity, selected=[]), id="action_mode_close_button")
        title = View(cls="android.widget.TextView", id="action_bar_title", text=str(count), weight=1, align="center",
                     height=ui.dp(36), style=Style(kind="text", size=ui.sp(22), fg=ON_SURFACE, max_lines=1))
        more = ui.icon_button("more_vert", "More options", lambda: self.show_dialog(activity, "selection_menu"),
                              id="action_overflow")
        return View(cls="android.view.ViewGroup", id="action_mode_bar", orientation="h", height=ui.dp(64),
                    padding=ui.pad(4, 8), gap=ui.dp(4), children=[close, title, more],
                    style=Style(kind="appbar", bg=PRIMARY_CONTAINER))

    def selection_menu(self, activity: Activity) -> View:
        return popup_menu(self.ui, [("Delete", lambda: self.show_dialog(activity, "delete_selected")),
                                    ("Make a copy", lambda: self._copy_selected(activity))])

    def delete_selected_dialog(self, activity: Activity) -> View:
        count = len(activity.state.get("selected", []))
        title = "Delete this note?" if count == 1 else f"Delete {count} notes?"
        return dialog(self.ui, title, "Deleted notes can't be recovered.",
                      [("Cancel", lambda: self.dismiss_dialog(activity)),
                       ("Delete", lambda: self._delete_selected(activity))])

    def _delete_selected(self, activity: Activity) -> None:
        selected = activity.state.get("selected", [])
        for note_id in selected:
            self.delete(note_id)
        activity.dialog = None
        self._set(activity, selected=[])
        self.toast("Note deleted" if len(selected) == 1 else f"{len(selected)} notes deleted")

    def _copy_selected(self, activity: Activity) -> None:
        for note_id in reversed(activity.state.get("selected", [])):
            self.copy(note_id)
        activity.dialog = None
        self._set(activity, selected=[])

    # ------------------------------------------------------------ navigation drawer

    def _drawer(self, activity: Activity) -> View:
        ui = self.ui
        current = activity.state.get("view", NOTES_VIEW)
        rows: list[View] = [ui.text("Google Keep", size=22, color=ON_SURFACE_VARIANT, padding=ui.pad(28, 20, 16, 16),
                                    id="drawer_header"),
                            self._drawer_row(activity, "Notes", "house", NOTES_VIEW, current)]
        if self.labels:
            rows.append(ui.text("Labels", size=14, weight=500, color=ON_SURFACE_VARIANT, id="drawer_section_title",
                                padding=ui.pad(28, 16, 16, 8)))
            rows += [self._drawer_row(activity, label, "note", label, current)
                     for label in sorted(self.labels, key=str.casefold)]
        width = int(self.window_size[0] * 0.8)
        panel = View(cls="com.google.android.material.navigation.NavigationView", id="navigation_drawer",
                     width=width, children=[ui.scroll(rows, key="drawer_list", id="drawer_navigation_list",
                                                       padding=ui.pad(12, 8, 12, 8))],
                     style=Style(bg=SURFACE, radius=ui.dp(16)))
        scrim = View(cls="android.view.View", weight=1, style=Style(kind="scrim"),
                     on_touch=lambda _x, _y: self._set(activity, drawer=False))
        row = View(cls="android.widget.LinearLayout", orientation="h", weight=1, children=[panel, scrim])
        return View(cls="androidx.drawerlayout.widget.DrawerLayout", id="drawer_layout", children=[row],
                    style=Style(bg=SURFACE))

    def _drawer_row(self, activity: Activity, title: str, icon: str, view: str, current: str) -> View:
        ui = self.ui
        row = ui.list_item(title, leading=ui.icon(icon), key=f"drawer:{title}", title_id="title",
                           selected=view == current, on_click=lambda: self._set(activity, drawer=False, view=view,
                                                                                  selected=[], query=""))
        row.style.radius, row.height, row.padding = ui.dp(28), ui.dp(56), ui.pad(16, 0, 24, 0)
        if view == current:
            row.style.bg = PRIMARY_CONTAINER
        return row
