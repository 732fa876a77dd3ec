"""Paths and loaders for the perception tests' UI dumps."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "ui_dumps"
SHARED_DUMPS = Path(__file__).resolve().parents[2] / "shared" / "data" / "ui-dumps"

SETTINGS_TOP = "appium_settings_top__shirates-core.xml"
DATETIME_JA = "appium_settings_datetime_ja__shirates-core.xml"
ANR_DIALOG = "appium_anr_dialog__shirates-core.xml"
PLAYSTORE = "appium_playstore_games__shirates-core.xml"
DOUYIN = "douyin_follow_zh__zhuxuezhe16-DouYin-Helper.xml"
TRAIN = "where_is_my_train__kdiitg-ui_finder.xml"
ALL_FIXTURES = (SETTINGS_TOP, DATETIME_JA, ANR_DIALOG, PLAYSTORE, DOUYIN, TRAIN)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")
