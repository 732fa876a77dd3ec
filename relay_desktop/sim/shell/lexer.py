"""Splits a command line into words, operators and redirections, as mksh's ``yylex`` does.

Quotes and backslashes are resolved here; ``$NAME``, ``${NAME}``, ``$(...)`` and backquotes become
:class:`Param` / :class:`CmdSub` parts that the interpreter expands when the command runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from relay_desktop.sim.shell.syntax import CmdSub, Lit, Param, ShellSyntaxError, Word, WordPart

__all__ = ["Token", "tokenize"]


@dataclass(frozen=True)
class Token:
    kind: str  # 'word', 'op', 'redir', 'eof'
    value: str = ""
    word: Word | None = None
    fd: int = -1


_OPERATORS = ("&&", "||", ";;", ";&", ";|", "|&", ";", "&", "|", "(", ")", "\n")
_META = set(" \t\n;&|()<>")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = set("?$!#-*@0123456789")


class _Lexer:
    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0

    def peek(self, offset: int = 0) -> str:
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else ""

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while True:
            tok = self._next()
            out.append(tok)
            if tok.kind == "eof":
                return out

    def _next(self) -> Token:
        src = self.src
        while True:
            c = self.peek()
            if c in (" ", "\t"):
                self.pos += 1
            elif c == "\\" and self.peek(1) == "\n":
                self.pos += 2
            elif c == "#":
                while self.peek() not in ("", "\n"):
                    self.pos += 1
            else:
                break
        if self.pos >= len(src):
            return Token("eof")
        c = self.peek()
        if c == "&" and self.peek(1) == ">":
            # mksh's "&>file": stdout and stderr both to file (the parser expands it).
            self.pos += 2
            return Token("redir", "&>", fd=1)
        if c in "<>":
            return self._redirect(-1)
        for op in _OPERATORS:
            if src.startswith(op, self.pos):
                self.pos += len(op)
                return Token("op", op)
        word = self._word()
        # A lone unquoted digit glued to '<' or '>' is a file descriptor number ("2>/dev/null").
        if (self.peek() in ("<", ">") and len(word.parts) == 1 and isinstance(word.parts[0], Lit)
                and not word.parts[0].quoted and len(word.parts[0].text) == 1 and word.parts[0].text.isdigit()):
            return self._redirect(int(word.parts[0].text))
        return Token("word", word.text, word=word)

    def _redirect(self, fd: int) -> Token:
        c = self.peek()
        self.pos += 1
        c2 = self.peek()
        if c == ">":
            if c2 == ">":
                op = ">>"
            elif c2 == "&":
                op = ">&"
            elif c2 == "|":
                op = ">"
            else:
                op, c2 = ">", ""
        else:
            if c2 == "<":
                raise ShellSyntaxError("here documents are not supported by the simulated shell")
            if c2 == "&":
                op = "<&"
            elif c2 == ">":
                op = "<"
            else:
                op, c2 = "<", ""
        if c2:
            self.pos += 1
        return Token("redir", op, fd=fd if fd >= 0 else (0 if c == "<" else 1))

    def _word(self) -> Word:
        parts: list[WordPart] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf)))
                buf.clear()

        while True:
            c = self.peek()
            if c == "" or c in _META:
                break
            if c == "\\":
                nxt = self.peek(1)
                if nxt == "\n":
                    self.pos += 2
                elif nxt == "":
                    buf.append("\\")
                    self.pos += 1
                else:
                    flush()
                    parts.append(Lit(nxt, quoted=True))
                    self.pos += 2
            elif c == "'":
                end = self.src.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote")
                flush()
                parts.append(Lit(self.src[self.pos + 1:end], quoted=True))
                self.pos = end + 1
            elif c == '"':
                flush()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif c == "$":
                part = self._dollar(quoted=False)
                if part is None:
                    buf.append("$")
                else:
                    flush()
                    parts.append(part)
            elif c == "`":
                flush()
                parts.append(CmdSub(self._backquoted(), quoted=False))
            else:
                buf.append(c)
                self.pos += 1
        flush()
        return Word(tuple(parts))

    def _double_quoted(self) -> list[WordPart]:
        parts: list[WordPart] = [Lit("", quoted=True)]  # keeps "" an (empty) word of its own
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), quoted=True))
                buf.clear()

        while True:
            c = self.peek()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            if c == '"':
                self.pos += 1
                flush()
                return parts
            if c == "\\":
                nxt = self.peek(1)
                if nxt in ('"', "\\", "$", "`"):
                    buf.append(nxt)
                    self.pos += 2
                elif nxt == "\n":
                    self.pos += 2
                else:
                    buf.append("\\")
                    self.pos += 1
            elif c == "$":
                part = self._dollar(quoted=True)
                if part is None:
                    buf.append("$")
                else:
                    flush()
                    parts.append(part)
            elif c == "`":
                flush()
                parts.append(CmdSub(self._backquoted(), quoted=True))
            else:
                buf.append(c)
                self.pos += 1

    def _dollar(self, quoted: bool) -> WordPart | None:
        """Parse after a '$'; None means the '$' is literal (the caller consumes it)."""
        nxt = self.peek(1)
        if nxt == "{":
            end = self.src.find("}", self.pos + 2)
            if end < 0:
                raise ShellSyntaxError("no closing quote")
            name = self.src[self.pos + 2:end]
            if not (_NAME.fullmatch(name) or (len(name) == 1 and name in _SPECIAL_PARAMS)):
                raise ShellSyntaxError(f"${{{name}}}: bad substitution")
            self.pos = end + 1
            return Param(name, quoted)
        if nxt == "(":
            if self.peek(2) == "(":
                raise ShellSyntaxError("arithmetic expansion is not supported by the simulated shell")
            start = self.pos + 2
            self.pos = start
            depth = 1
            while depth:
                c = self.peek()
                if c == "":
                    raise ShellSyntaxError("no closing quote")
                if c in ("'", '"'):
                    end = self._skip_quoted(c)
                    self.pos = end
                    continue
                if c == "\\":
                    self.pos += 2
                    continue
                depth += (c == "(") - (c == ")")
                self.pos += 1
            return CmdSub(self.src[start:self.pos - 1], quoted)
        match = _NAME.match(self.src, self.pos + 1)
        if match:
            self.pos = match.end()
            return Param(match.group(), quoted)
        if nxt and nxt in _SPECIAL_PARAMS:
            self.pos += 2
            return Param(nxt, quoted)
        self.pos += 1
        return None

    def _skip_quoted(self, quote: str) -> int:
        i = self.pos + 1
        while i < len(self.src):
            if self.src[i] == "\\" and quote == '"':
                i += 2
                continue
            if self.src[i] == quote:
                return i + 1
            i += 1
        raise ShellSyntaxError("no closing quote")

    def _backquoted(self) -> str:
        self.pos += 1
        out: list[str] = []
        while True:
            c = self.peek()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            if c == "`":
                self.pos += 1
                return "".join(out)
            if c == "\\" and self.peek(1) in ("$", "`", "\\"):
                out.append(self.peek(1))
                self.pos += 2
            else:
                out.append(c)
                self.pos += 1


def tokenize(source: str) -> list[Token]:
    """All tokens of ``source``, ending with an ``eof`` token."""
    return _Lexer(source).tokens()
