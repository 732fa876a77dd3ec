"""Settings other than keys: a typed schema, saved atomically, a broken file moved aside with a plain reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.config import LLMSettings


def test_settings_round_trip_and_feed_the_agent(tmp_path: Path) -> None:
    settings = AppSettings(llm=LLMSettings.for_providers("openai", "gemini"), max_steps=30, screenshot_max_kb=80,
                           shell_allowed=("getprop",), speak_progress=True, split_screen=False)
    path = settings.save(tmp_path / "settings.json")
    loaded = AppSettings.load(path)
    assert loaded == settings
    agent = loaded.agent_settings(pace_s=0.5)
    assert (agent.max_steps, agent.screenshot_max_bytes, agent.shell_allowed, agent.pace_s) == (30, 80_000,
                                                                                                ("getprop",), 0.5)
    assert agent.split_screen is False and AppSettings().agent_settings().split_screen is True
    assert "sk-" not in path.read_text() and "api_key" not in path.read_text()


def test_a_broken_file_is_moved_aside_and_defaults_are_used(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    loaded = AppSettings.load(path)
    assert loaded.max_steps == 50 and "Settings file was unreadable (kept as" in loaded.problem
    assert (tmp_path / "settings.json.unreadable").exists() and not path.exists()
    path.write_text(json.dumps({"version": 99}))
    assert "newer Relay Desktop" in AppSettings.load(path).problem


def test_bad_values_are_refused() -> None:
    with pytest.raises(ValueError, match="max steps"):
        AppSettings(max_steps=0)
    with pytest.raises(ValueError, match="screenshot budget"):
        AppSettings(screenshot_max_kb=5)


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert AppSettings.load(tmp_path / "none.json") == AppSettings()


def test_private_apps_round_trip_and_feed_the_agent(tmp_path: Path) -> None:
    apps = ("com.northwind.bank", "com.google.android.apps.authenticator2")
    path = AppSettings(private_apps=apps).save(tmp_path / "settings.json")
    assert json.loads(path.read_text())["private_apps"] == list(apps)
    loaded = AppSettings.load(path)
    assert loaded.private_apps == apps and loaded.agent_settings().private_apps == apps
    # A file written before the list existed has none, and so does the agent.
    path.write_text(json.dumps({"version": 1, "max_steps": 20}))
    assert AppSettings.load(path).private_apps == () and AppSettings.load(path).agent_settings().private_apps == ()
