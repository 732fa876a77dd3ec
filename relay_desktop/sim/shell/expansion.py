"""Word expansion: parameters, command substitution, field splitting on IFS, pathname expansion."""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from relay_desktop.sim.shell.base import SH, ShellExit, Writer, normpath
from relay_desktop.sim.shell.syntax import CmdSub, Lit, Param, Word
from relay_desktop.sim.streams import BytePipe

if TYPE_CHECKING:
    from relay_desktop.sim.shell.interpreter import Session, Shell

IFS = " \t\n"


def closed_stdin() -> BytePipe:
    pipe = BytePipe()
    pipe.close()
    return pipe


class Expander:
    """Expands words for one shell; command substitutions run through that shell."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell

    async def one(self, word: Word, session: Session, err: Writer, subst_status: list[int]) -> str:
        """Expand without field splitting or globbing (assignments, redirection targets)."""
        pieces: list[str] = []
        for part in word.parts:
            pieces.append(part.text if isinstance(part, Lit) else await self._value(part, session, err, subst_status))
        return "".join(pieces)

    async def words(self, word: Word, session: Session, err: Writer, subst_status: list[int]) -> list[str]:
        """Parameter and command substitution, field splitting on IFS, then pathname expansion."""
        ifs = session.vars.get("IFS", IFS)
        fields: list[list[tuple[str, bool]]] = []
        current: list[tuple[str, bool]] = []
        started = False
        for part in word.parts:
            if isinstance(part, Lit):
                current += [(ch, not part.quoted) for ch in part.text]
                started = started or part.quoted or bool(part.text)
                continue
            value = await self._value(part, session, err, subst_status)
            if part.quoted:
                current += [(ch, False) for ch in value]
                started = True
                continue
            for ch in value:
                if ch in ifs:
                    if current or started:
                        fields.append(current)
                    current, started = [], False
                else:
                    current.append((ch, True))
                    started = True
        if current or started:
            fields.append(current)
        words: list[str] = []
        for chars in fields:
            text = "".join(ch for ch, _ in chars)
            if any(active and ch in "*?[" for ch, active in chars):
                words += self._glob(chars, session.cwd) or [text]
            else:
                words.append(text)
        return words

    async def _value(self, part: Param | CmdSub, session: Session, err: Writer, subst_status: list[int]) -> str:
        if isinstance(part, CmdSub):
            captured = bytearray()

            async def collect(data: bytes) -> None:
                captured.extend(data)

            child = session.subshell()
            try:
                status = await self.shell.run_in(child, part.source, closed_stdin(), collect, err)
            except ShellExit as exc:
                status = exc.status
            subst_status.append(status)
            return captured.decode(errors="replace").rstrip("\n")
        name = part.name
        special: dict[str, Callable[[], str]] = {
            "?": lambda: str(session.status),
            "$": lambda: str(session.pid),
            "!": lambda: "" if session.last_background_pid is None else str(session.last_background_pid),
            "#": lambda: str(len(session.positional)),
            "0": lambda: SH,
            "-": lambda: "",
            "*": lambda: " ".join(session.positional),
            "@": lambda: " ".join(session.positional),
        }
        if name in special:
            return special[name]()
        if name.isdigit():
            index = int(name) - 1
            return session.positional[index] if index < len(session.positional) else ""
        return session.vars.get(name, "")

    def _glob(self, chars: list[tuple[str, bool]], cwd: str) -> list[str]:
        """Pathname expansion over the phone's file system; [] when nothing matches."""
        components: list[list[tuple[str, bool]]] = [[]]
        for ch, active in chars:
            if ch == "/":
                components.append([])
            else:
                components[-1].append((ch, active))
        absolute = chars[0][0] == "/"
        if absolute:
            components = components[1:]
        fs = self.shell.phone.fs
        matches: list[tuple[str, str]] = [("/", "/")] if absolute else [(cwd, "")]
        for comp in components:
            magic = any(active and ch in "*?[" for ch, active in comp)
            pattern = "".join(ch if active or ch not in "*?[" else f"[{ch}]" for ch, active in comp)
            literal = "".join(ch for ch, _ in comp)
            found: list[tuple[str, str]] = []
            for real, shown in matches:
                names = [literal]
                if magic:
                    try:
                        names = sorted(fs.listdir(real)) if fs.is_dir(real) else []
                    except OSError:
                        names = []
                    hidden_ok = pattern.startswith(".")
                    names = [n for n in names
                             if (hidden_ok or not n.startswith(".")) and fnmatch.fnmatchcase(n, pattern)]
                found += [(posixpath.join(real, n), posixpath.join(shown, n) if shown else n) for n in names]
            matches = found
        return sorted(shown for real, shown in matches if fs.exists(normpath(real)))

