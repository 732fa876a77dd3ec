"""Tic Tac Toe, a small game drawn by its engine on one SurfaceView, as games are.

Accessibility sees a single ``android.view.SurfaceView`` with no text and no children: the score, whose turn it
is, the board and the "New game" button exist only in the pixels. A tap lands where the board is drawn. The
player is X and moves first; the phone answers at once with a fixed, beatable strategy (win, else block, else
the centre, else the first free corner, else the first free side), so a game has a known best line, and two
runs of the same moves end the same way.

The board is a square centred in the surface (:func:`board_rect`): a scripted player finds the cells from the
SurfaceView's bounds in the dump, as someone who has seen the game once would. State lives on the app for
checkers: :attr:`TicTacToe.board`, :attr:`TicTacToe.results` (one "win", "loss" or "draw" per game finished).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.canvas import Canvas
from relay_desktop.sim.paint import Ctx
from relay_desktop.sim.views import Color, Rect, Style, View

__all__ = ["LINES", "PACKAGE", "TicTacToe", "board_rect", "cell_centre", "winner"]

PACKAGE = "com.pocketgames.tictactoe"
GAME = "com.unity3d.player.UnityPlayerActivity"     # what a game engine's activity is called
BOARD_SHARE = 0.84            # the board's side, as a share of the surface's width

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_PREFERENCE = (4, 0, 2, 6, 8, 1, 3, 5, 7)      # centre, corners, sides

NIGHT: Color = (27, 33, 61)
GRID: Color = (84, 96, 150)
CELL: Color = (36, 44, 80)
CROSS: Color = (255, 107, 107)
NOUGHT: Color = (78, 205, 196)
WHITE: Color = (255, 255, 255)
MUTED: Color = (170, 178, 214)


def winner(board: list[str]) -> str:
    """"X" or "O" when a line is complete, "draw" when the board is full, else ""."""
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return "draw" if all(board) else ""


def _reply(board: list[str]) -> int:
    """The phone's move: complete its own line, else block the player's, else by preference."""
    for mark in ("O", "X"):
        for line in LINES:
            marks = [board[i] for i in line]
            if marks.count(mark) == 2 and marks.count("") == 1:
                return line[marks.index("")]
    return next(i for i in _PREFERENCE if not board[i])


def board_rect(surface: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Where the board is drawn in a surface with these bounds (left, top, right, bottom): centred, square."""
    left, top, right, bottom = surface
    side = round((right - left) * BOARD_SHARE)
    x, y = left + (right - left - side) // 2, top + (bottom - top - side) // 2
    return x, y, x + side, y + side


def cell_centre(surface: tuple[int, int, int, int], cell: int) -> tuple[int, int]:
    """The middle of a cell (0 top left … 8 bottom right) on the screen."""
    left, top, right, _ = board_rect(surface)
    side = right - left
    return left + side * (2 * (cell % 3) + 1) // 6, top + side * (2 * (cell // 3) + 1) // 6


def _mark(mark: str) -> Canvas:
    """A cell's X or O, drawn with round strokes (supersampled, so edges are smooth)."""

    def draw(ctx: Ctx, r: Rect) -> None:
        if not mark:
            return
        scale = 4
        w, h = r.width * scale, r.height * scale
        mask = Image.new("L", (w, h), 0)
        pen = ImageDraw.Draw(mask)
        inset, stroke = w * 0.24, max(4, round(w * 0.085))
        if mark == "X":
            strokes = (((inset, inset), (w - inset, h - inset)), ((w - inset, inset), (inset, h - inset)))
            for (x1, y1), (x2, y2) in strokes:
                pen.line((x1, y1, x2, y2), fill=255, width=stroke)
                for x, y in ((x1, y1), (x2, y2)):
                    pen.ellipse((x - stroke / 2, y - stroke / 2, x + stroke / 2, y + stroke / 2), fill=255)
        else:
            pen.ellipse((inset, inset, w - inset, h - inset), outline=255, width=stroke)
        small = mask.resize((r.width, r.height), Image.Resampling.BOX)
        ctx.img.paste(CROSS if mark == "X" else NOUGHT, (r.left, r.top, r.right, r.bottom), small)

    return Canvas(cls="page", painter=draw, style=Style(bg=CELL))


class TicTacToe(App):
    package = PACKAGE
    label = "Tic Tac Toe"
    icon = "tic_tac_toe"
    color = (27, 33, 61)
    main_activity = GAME
    system = False
    version_name = "1.4.2"
    version_code = 142
    screens = {GAME: "game"}

    def reset(self) -> None:
        self.board: list[str] = [""] * 9
        self.results: list[str] = []    # "win", "loss" or "draw" for each game finished, oldest first
        self.moves: list[int] = []      # the player's moves in the game on the board

    @property
    def score(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of the player."""
        return self.results.count("win"), self.results.count("draw"), self.results.count("loss")

    def play(self, cell: int) -> None:
        """The player puts an X on ``cell``; the phone answers unless the game is over."""
        if self.board[cell] or winner(self.board):
            return      # a taken cell, or a finished game, takes no move
        self.board[cell] = "X"
        self.moves.append(cell)
        if not winner(self.board):
            self.board[_reply(self.board)] = "O"
        outcome = winner(self.board)
        if outcome:
            self.results.append({"X": "win", "O": "loss", "draw": "draw"}[outcome])
        self.phone.invalidate()

    def new_game(self) -> None:
        self.board, self.moves = [""] * 9, []
        self.phone.invalidate()

    # ------------------------------------------------------------ drawing

    def _status(self) -> str:
        return {"X": "You win!", "O": "The phone wins", "draw": "It's a draw", "": "Your turn"}[winner(self.board)]

    def _text(self, value: str, *, size: float, weight: int = 400, color: Color = WHITE) -> View:
        view = self.ui.text(value, size=size, weight=weight, color=color, align="center")
        view.cls = "page"
        return view

    def _tally(self, label: str, value: int, color: Color) -> View:
        ui = self.ui
        return View(cls="page", weight=1, gap=ui.dp(2), padding=ui.pad(0, 10), children=[
            self._text(label, size=12, weight=700, color=color), self._text(str(value), size=28, weight=700)],
            style=Style(bg=CELL, radius=ui.dp(12)))

    def game(self, activity: Activity) -> View:
        ui = self.ui
        wins, draws, losses = self.score
        header = View(cls="page", anchor="top", gap=ui.dp(16), padding=ui.pad(20, 32, 20, 0), children=[
            self._text("TIC TAC TOE", size=34, weight=800),
            View(cls="page", orientation="h", gap=ui.dp(12), children=[
                self._tally("YOU (X)", wins, CROSS), self._tally("DRAWS", draws, MUTED),
                self._tally("PHONE (O)", losses, NOUGHT)]),
            self._text(self._status(), size=22, weight=600, color=MUTED if not winner(self.board) else WHITE),
        ])
        width = self.window_size[0]
        line = ui.dp(6)
        side = round(width * BOARD_SHARE)
        side -= (side - 2 * line) % 3      # three equal cells: no sliver of grid colour along the far edges
        rows = []
        for row in range(3):
            cells: list[View] = []
            for cell in range(row * 3, row * 3 + 3):
                view = _mark(self.board[cell])
                view.weight, view.clickable = 1, True
                view.on_click = lambda cell=cell: self.play(cell)
                cells.append(view)
            rows.append(View(cls="page", orientation="h", weight=1, gap=line, children=cells))
        board = View(cls="page", key="board", anchor="center", width=side, height=side, gap=line, children=rows,
                     style=Style(bg=GRID))
        again = ui.button("New game", self.new_game, width=220)
        again.cls, again.anchor, again.margin = "page", "bottom", ui.dp(48)
        again.style.bg, again.style.fg, again.height = CROSS, WHITE, ui.dp(56)
        root = View(cls="page", orientation="stack", children=[header, board, again], style=Style(bg=NIGHT))
        surface = Canvas(cls="android.view.SurfaceView", key="game_surface", drawing=root, own_colours=True,
                         focusable=True, weight=1)
        # The window behind the surface keeps the system's light background, under the dark status bar icons.
        return View(cls="android.widget.FrameLayout", children=[surface])
