"""Parser for the part of Android's ``/system/bin/sh`` (mksh) that adb clients use.

Grammar (no compound commands)::

    script    := list EOF
    list      := and_or ((';' | '&' | NEWLINE) and_or?)*
    and_or    := pipeline (('&&' | '||') NEWLINE* pipeline)*
    pipeline  := ['!'] command ('|' NEWLINE* command)*
    command   := (ASSIGNMENT | REDIRECT)* (WORD | REDIRECT)*

mksh parses a ``-c`` string completely before running any of it, so a syntax error anywhere means
nothing runs. Error texts follow mksh's ``syntaxerr()`` and ``yylex()``: ``syntax error: unexpected
';'``, ``syntax error: unexpected EOF``, ``no closing quote``.
"""

from __future__ import annotations

import re

from relay_desktop.sim.shell.lexer import Token, tokenize
from relay_desktop.sim.shell.syntax import (
    AndOr,
    CmdSub,
    Command,
    ListItem,
    Lit,
    Param,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Word,
    WordPart,
)

__all__ = [
    "AndOr", "CmdSub", "Command", "ListItem", "Lit", "Param", "Pipeline", "Redirect", "Script",
    "ShellSyntaxError", "Word", "parse",
]

_RESERVED = {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
             "done", "function", "time", "{", "}", "[["}
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def take(self) -> Token:
        tok = self.toks[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def unexpected(self) -> ShellSyntaxError:
        tok = self.tok
        if tok.kind == "eof":
            return ShellSyntaxError("syntax error: unexpected EOF")
        shown = "newline" if tok.value == "\n" else tok.value
        if tok.kind == "redir" and tok.fd not in (-1, 0, 1):
            shown = f"{tok.fd}{tok.value}"
        return ShellSyntaxError(f"syntax error: unexpected '{shown}'")

    def skip_newlines(self) -> None:
        while self.tok.kind == "op" and self.tok.value == "\n":
            self.take()

    def script(self) -> Script:
        items: list[ListItem] = []
        while True:
            body = self.and_or()
            tok = self.tok
            if tok.kind == "op" and tok.value == "\n":
                self.take()
                if body is not None:
                    items.append(ListItem(body))
                continue
            if body is None:
                break
            if tok.kind == "op" and tok.value in (";", "&"):
                self.take()
                items.append(ListItem(body, background=tok.value == "&"))
                continue
            items.append(ListItem(body))
            break
        if self.tok.kind != "eof":
            raise self.unexpected()
        return Script(tuple(items))

    def and_or(self) -> AndOr | None:
        first = self.pipeline()
        if first is None:
            return None
        rest: list[tuple[str, Pipeline]] = []
        while self.tok.kind == "op" and self.tok.value in ("&&", "||"):
            op = self.take().value
            self.skip_newlines()
            nxt = self.pipeline()
            if nxt is None:
                raise self.unexpected()
            rest.append((op, nxt))
        return AndOr(first, tuple(rest))

    def pipeline(self) -> Pipeline | None:
        negate = False
        if self.tok.kind == "word" and self.tok.word is not None and self.tok.word.plain and self.tok.value == "!":
            self.take()
            negate = True
        first = self.command()
        if first is None:
            if negate:
                raise self.unexpected()
            return None
        commands = [first]
        while self.tok.kind == "op" and self.tok.value == "|":
            self.take()
            self.skip_newlines()
            nxt = self.command()
            if nxt is None:
                raise self.unexpected()
            commands.append(nxt)
        return Pipeline(tuple(commands), negate)

    def command(self) -> Command | None:
        tok = self.tok
        if tok.kind == "op" and tok.value in ("(", ")"):
            if tok.value == "(":
                raise ShellSyntaxError("syntax error: subshells are not supported by the simulated shell")
            return None
        if tok.kind not in ("word", "redir"):
            return None
        if tok.kind == "word" and tok.word is not None and tok.word.plain and tok.value in _RESERVED:
            if tok.value in ("}", "fi", "done", "esac", "then", "else", "elif", "do"):
                raise self.unexpected()
            raise ShellSyntaxError(f"syntax error: '{tok.value}' is not supported by the simulated shell")
        assignments: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            tok = self.tok
            if tok.kind == "redir":
                self.take()
                target = self.tok
                if target.kind != "word" or target.word is None:
                    raise self.unexpected()
                self.take()
                if tok.value == "&>":
                    redirects.append(Redirect(1, ">", target.word))
                    redirects.append(Redirect(2, ">&", Word((Lit("1"),))))
                else:
                    redirects.append(Redirect(tok.fd, tok.value, target.word))
            elif tok.kind == "word" and tok.word is not None:
                self.take()
                assignment = _split_assignment(tok.word) if not words else None
                if assignment is not None:
                    assignments.append(assignment)
                else:
                    words.append(tok.word)
            else:
                break
        return Command(tuple(assignments), tuple(words), tuple(redirects))


def _split_assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted:
        return None
    match = _ASSIGNMENT.match(first.text)
    if match is None:
        return None
    rest = first.text[match.end():]
    value_parts: tuple[WordPart, ...] = ((Lit(rest),) if rest else ()) + word.parts[1:]
    return match.group(1), Word(value_parts)


def parse(source: str) -> Script:
    """Parse a whole command line; raises :class:`ShellSyntaxError` with mksh's message."""
    return _Parser(tokenize(source)).script()
