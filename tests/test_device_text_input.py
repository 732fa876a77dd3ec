"""Typing through `adb shell input text`: escaping rules and refusal of what it cannot type."""

from __future__ import annotations

import pytest

from relay_desktop.device.app_labels import label_for
from relay_desktop.device.errors import UnsupportedTextError
from relay_desktop.device.text_input import shell_quote, type_steps


def commands(text: str) -> list[str]:
    return [step.command() for step in type_steps(text)]


def test_spaces_become_percent_s_and_words_are_single_quoted() -> None:
    assert commands("running late") == ["input text 'running%slate'"]


def test_shell_metacharacters_are_quoted() -> None:
    assert commands("a;b&&c$(x)|d") == ["input text 'a;b&&c$(x)|d'"]
    assert commands("it's") == ["input text 'it'\\''s'"]


def test_literal_percent_s_is_split_so_it_is_not_turned_into_a_space() -> None:
    assert commands("50%sale") == ["input text '50%'", "input text 'sale'"]
    assert commands("100% sure") == ["input text '100%%ssure'"]


def test_newlines_and_tabs_become_key_presses() -> None:
    assert commands("a\nb\tc") == ["input text 'a'", "input keyevent 66", "input text 'b'",
                                   "input keyevent 61", "input text 'c'"]


@pytest.mark.parametrize("text", ["héllo", "Привет", "👍", "bell\x07"])
def test_non_ascii_and_control_characters_are_refused_clearly(text: str) -> None:
    with pytest.raises(UnsupportedTextError, match="only types printable ASCII"):
        type_steps(text)


def test_empty_text_needs_no_command() -> None:
    assert type_steps("") == []


def test_shell_quote_round_trips_through_posix_sh() -> None:
    import subprocess

    for word in ["plain", "two words", "it's", "$HOME", "a\\b", "'"]:
        out = subprocess.run(["sh", "-c", f"printf %s {shell_quote(word)}"], capture_output=True, text=True,
                             timeout=5)
        assert out.stdout == word


def test_app_labels_known_and_guessed() -> None:
    assert label_for("com.android.chrome") == "Chrome"
    assert label_for("com.example.fitness_tracker") == "Fitness tracker"
    assert label_for("org.fdroid.fdroid") == "Fdroid"


def test_an_app_is_found_by_the_name_its_launcher_shows_when_every_word_is_in_its_package() -> None:
    from relay_desktop.device.app_labels import matching_apps
    from relay_desktop.device.models import AppInfo

    apps = [AppInfo(p, label_for(p)) for p in ("com.northwind.bank", "com.android.settings", "com.chase.sig.android")]
    assert label_for("com.northwind.bank") == "Bank"            # all the package tells
    assert [a.package for a in matching_apps(apps, "Northwind Bank")] == ["com.northwind.bank"]
    assert matching_apps(apps, "Westwind Bank") == []
