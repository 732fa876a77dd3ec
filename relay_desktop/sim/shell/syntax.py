"""The syntax tree of a parsed command line, and the parse error."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "AndOr", "CmdSub", "Command", "ListItem", "Lit", "Param", "Pipeline", "Redirect", "Script",
    "ShellSyntaxError", "Word", "WordPart",
]


class ShellSyntaxError(Exception):
    """A parse failure; ``str()`` is the message mksh prints after ``/system/bin/sh: ``."""


@dataclass(frozen=True)
class Lit:
    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Param:
    """``$NAME``, ``${NAME}`` or a special parameter (``$?``, ``$$``, ``$!``, ``$#``, ``$0``...)."""

    name: str
    quoted: bool = False


@dataclass(frozen=True)
class CmdSub:
    """``$(...)`` or a backquoted command; ``source`` is parsed when it runs."""

    source: str
    quoted: bool = False


WordPart = Lit | Param | CmdSub


@dataclass(frozen=True)
class Word:
    parts: tuple[WordPart, ...]

    @property
    def text(self) -> str:
        """The word as written, minus quotes (for messages and reserved-word checks)."""
        return "".join(p.text if isinstance(p, Lit) else f"${p.name}" if isinstance(p, Param)
                       else f"$({p.source})" for p in self.parts)

    @property
    def plain(self) -> bool:
        """True if the word is one unquoted literal (candidate reserved word or assignment)."""
        return len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted


@dataclass(frozen=True)
class Redirect:
    fd: int
    op: str  # '<', '>', '>>', '>&', '<&'
    target: Word


@dataclass(frozen=True)
class Command:
    assignments: tuple[tuple[str, Word], ...] = ()
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[Command, ...]
    negate: bool = False


@dataclass(frozen=True)
class AndOr:
    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...] = ()


@dataclass(frozen=True)
class ListItem:
    body: AndOr
    background: bool = False


@dataclass(frozen=True)
class Script:
    items: tuple[ListItem, ...] = field(default_factory=tuple)
