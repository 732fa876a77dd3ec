"""How to type text with ``adb shell input text``, which has sharp edges.

``input text`` takes one shell word, turns every ``%s`` into a space (there is no escape for a literal
``%s``), and throws on anything outside ASCII. So text is split into steps: quoted ``input text``
arguments, plus key presses for newline and tab. Non-ASCII text is refused up front with a clear
message instead of a Java stack trace from the phone.
"""

from __future__ import annotations

from dataclasses import dataclass

from relay_desktop.device.errors import UnsupportedTextError

KEYCODE_TAB = 61
KEYCODE_ENTER = 66


@dataclass(frozen=True)
class TypeStep:
    text: str | None = None      # an ``input text`` argument, already in adb's %s form
    keycode: int | None = None

    def command(self) -> str:
        if self.keycode is not None:
            return f"input keyevent {self.keycode}"
        return f"input text {shell_quote(self.text or '')}"


def shell_quote(word: str) -> str:
    """Quote for the phone's sh (mksh): single quotes, with embedded quotes spliced in."""
    return "'" + word.replace("'", "'\\''") + "'"


def untypable(text: str) -> list[str]:
    """The characters ``input text`` cannot type (newline and tab are typed as keys)."""
    return sorted({c for c in text if (ord(c) > 126 or ord(c) < 32) and c not in "\n\t"})


def type_steps(text: str) -> list[TypeStep]:
    bad = untypable(text)
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        raise UnsupportedTextError(
            f"cannot type {shown}: 'adb shell input text' only types printable ASCII. "
            "Other text is typed by a clipboard paste (the live mirror or the uiautomator2 server).")
    steps: list[TypeStep] = []
    chunk = ""

    def flush() -> None:
        nonlocal chunk
        if chunk:
            steps.append(TypeStep(text=chunk.replace(" ", "%s")))
            chunk = ""

    for char in text:
        if char in "\n\t":
            flush()
            steps.append(TypeStep(keycode=KEYCODE_ENTER if char == "\n" else KEYCODE_TAB))
        elif char == "s" and chunk.endswith("%"):
            # A literal "%s" would become a space: send the "%" and the "s" in separate commands.
            flush()
            chunk = "s"
        else:
            chunk += char
    flush()
    return steps
