"""The mksh-subset parser: quoting, operators, redirections, assignments and syntax errors."""

from __future__ import annotations

import shlex

import pytest

from relay_desktop.sim.shell.parser import (
    CmdSub,
    Command,
    Lit,
    Param,
    Redirect,
    ShellSyntaxError,
    Word,
    parse,
)


def words(source: str) -> list[str]:
    """The words of a single simple command, with quotes removed (no expansion)."""
    script = parse(source)
    assert len(script.items) == 1
    (command,) = script.items[0].body.first.commands
    return [w.text for w in command.words]


def only_command(source: str) -> Command:
    script = parse(source)
    assert len(script.items) == 1 and not script.items[0].body.rest
    (command,) = script.items[0].body.first.commands
    return command


def syntax_error(source: str) -> str:
    with pytest.raises(ShellSyntaxError) as info:
        parse(source)
    return str(info.value)


# ------------------------------------------------------------------ words and quoting


def test_plain_words_split_on_blanks() -> None:
    assert words("input  tap\t100 200") == ["input", "tap", "100", "200"]


def test_single_quotes_are_literal() -> None:
    assert words("echo 'a  $X \\n \"q\"'") == ["echo", 'a  $X \\n "q"']


def test_double_quotes_keep_blanks_and_unescape_four_characters() -> None:
    assert words(r'echo "a \"b\" \\ \$ \n"') == ["echo", 'a "b" \\ $ \\n']


def test_backslash_escapes_the_next_character() -> None:
    assert words(r"echo a\ b \; \'") == ["echo", "a b", ";", "'"]


def test_adjacent_quoted_parts_make_one_word() -> None:
    # What adbutils sends for ["input", "text", "it's"]: shlex.quote -> 'it'"'"'s'
    assert words(shlex.join(["input", "text", "it's here"])) == ["input", "text", "it's here"]


def test_empty_quotes_are_an_empty_word() -> None:
    command = only_command("echo '' \"\" x")
    assert [w.text for w in command.words] == ["echo", "", "", "x"]


def test_line_continuation_is_removed() -> None:
    assert words("echo ab\\\ncd") == ["echo", "abcd"]


def test_comment_starts_only_at_a_word_boundary() -> None:
    assert words("echo a#b # the rest is ignored; rm -rf /") == ["echo", "a#b"]


def test_dollar_parameters_in_and_out_of_quotes() -> None:
    command = only_command('echo $HOME "${USER}x" $? "$?" \'$NOPE\' $ a$')
    assert command.words[1].parts == (Param("HOME"),)
    assert command.words[2].parts == (Lit("", True), Param("USER", True), Lit("x", True))
    assert command.words[3].parts == (Param("?"),)
    assert command.words[4].parts == (Lit("", True), Param("?", True))
    assert command.words[5].parts == (Lit("$NOPE", True),)
    assert command.words[6].parts == (Lit("$"),)
    assert command.words[7].parts == (Lit("a$"),)


def test_command_substitution_forms() -> None:
    command = only_command("echo $(getprop ro.x) `id -u` \"$(echo 'a)b')\"")
    assert command.words[1].parts == (CmdSub("getprop ro.x"),)
    assert command.words[2].parts == (CmdSub("id -u"),)
    assert command.words[3].parts == (Lit("", True), CmdSub("echo 'a)b'", True))


# ------------------------------------------------------------------ lists, pipelines, background


def test_semicolons_and_newlines_separate_commands() -> None:
    script = parse("echo a; echo b\necho c;")
    assert [item.body.first.commands[0].words[1].text for item in script.items] == ["a", "b", "c"]


def test_and_or_chains() -> None:
    script = parse("true && echo yes || echo no")
    body = script.items[0].body
    assert body.first.commands[0].words[0].text == "true"
    assert [(op, p.commands[0].words[1].text) for op, p in body.rest] == [("&&", "yes"), ("||", "no")]


def test_newline_allowed_after_and_and_pipe() -> None:
    script = parse("echo a &&\n echo b |\n cat")
    assert len(script.items) == 1
    assert [len(p.commands) for _, p in script.items[0].body.rest] == [2]


def test_pipeline_stages() -> None:
    pipeline = parse("getprop | grep model | head -1").items[0].body.first
    assert [c.words[0].text for c in pipeline.commands] == ["getprop", "grep", "head"]


def test_negated_pipeline() -> None:
    assert parse("! false").items[0].body.first.negate is True


def test_trailing_ampersand_runs_in_background() -> None:
    script = parse("sleep 5 & echo started")
    assert [item.background for item in script.items] == [True, False]


def test_adbutils_exit_marker_suffix_parses() -> None:
    script = parse("dumpsys window windows; echo X4EXIT:$?")
    marker = script.items[1].body.first.commands[0].words[1]
    assert marker.parts == (Lit("X4EXIT:"), Param("?"))


# ------------------------------------------------------------------ redirections and assignments


def test_redirections() -> None:
    command = only_command("cmd > /sdcard/o >> /sdcard/a 2>/dev/null 2>&1 < /sdcard/in >&2")
    assert [(r.fd, r.op, r.target.text) for r in command.redirects] == [
        (1, ">", "/sdcard/o"), (1, ">>", "/sdcard/a"), (2, ">", "/dev/null"), (2, ">&", "1"),
        (0, "<", "/sdcard/in"), (1, ">&", "2"),
    ]
    assert [w.text for w in command.words] == ["cmd"]


def test_only_a_single_digit_is_a_descriptor() -> None:
    command = only_command("echo 12>x a2>y")
    assert [w.text for w in command.words] == ["echo", "12", "a2"]
    assert [(r.fd, r.target.text) for r in command.redirects] == [(1, "x"), (1, "y")]


def test_ampersand_greater_redirects_both_streams() -> None:
    command = only_command("cmd &>/dev/null")
    assert command.redirects == (Redirect(1, ">", Word((Lit("/dev/null"),))), Redirect(2, ">&", Word((Lit("1"),))))


def test_env_prefix_assignments() -> None:
    command = only_command(
        "CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server 3.3.4 log_level=info"
    )
    assert [(name, value.text) for name, value in command.assignments] == [
        ("CLASSPATH", "/data/local/tmp/scrcpy-server.jar")]
    assert [w.text for w in command.words] == ["app_process", "/", "com.genymobile.scrcpy.Server", "3.3.4",
                                               "log_level=info"]


def test_assignment_value_may_be_quoted_and_alone() -> None:
    command = only_command('X="a b" Y=')
    assert [(name, value.text) for name, value in command.assignments] == [("X", "a b"), ("Y", "")]
    assert command.words == ()


def test_quoted_name_is_not_an_assignment() -> None:
    assert words("'X'=1 echo") == ["X=1", "echo"]


# ------------------------------------------------------------------ syntax errors (mksh wording)


@pytest.mark.parametrize(("source", "message"), [
    ("; ls", "syntax error: unexpected ';'"),
    ("echo a ;;", "syntax error: unexpected ';;'"),
    ("echo a; ; echo b", "syntax error: unexpected ';'"),
    ("| grep x", "syntax error: unexpected '|'"),
    ("echo a |", "syntax error: unexpected EOF"),
    ("echo a &&", "syntax error: unexpected EOF"),
    ("&& echo", "syntax error: unexpected '&&'"),
    ("echo >", "syntax error: unexpected EOF"),
    ("echo > ;", "syntax error: unexpected ';'"),
    ("echo a )", "syntax error: unexpected ')'"),
    ("fi", "syntax error: unexpected 'fi'"),
    ("echo 'abc", "no closing quote"),
    ('echo "abc', "no closing quote"),
    ("echo $(date", "no closing quote"),
    ("echo `date", "no closing quote"),
    ("echo ${a-b}", "${a-b}: bad substitution"),
])
def test_syntax_errors(source: str, message: str) -> None:
    assert syntax_error(source) == message


def test_unsupported_compound_commands_say_so() -> None:
    assert "not supported" in syntax_error("if true; then echo a; fi")
    assert "not supported" in syntax_error("(echo a)")
    assert "not supported" in syntax_error("cat <<EOF")


def test_empty_and_blank_sources_parse_to_nothing() -> None:
    assert parse("").items == ()
    assert parse("  \n # only a comment\n").items == ()
