"""Backoff arithmetic, the price table and model settings: the parts of the LLM package with no HTTP."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from relay_desktop.llm.config import LLMSettings, ModelRef, ProviderSettings, builtin_provider
from relay_desktop.llm.costs import CostMeter, ModelPrice, PriceTable
from relay_desktop.llm.retry import RetryPolicy, backoff_delay, parse_retry_after
from relay_desktop.llm.types import OutputMode, Usage


def test_backoff_grows_is_jittered_and_capped() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    rng = random.Random(7)
    for retry in range(1, 8):
        ceiling = min(4.0, 0.5 * 2 ** (retry - 1))
        delays = [backoff_delay(policy, retry, rng=rng) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # full jitter spreads over the whole range
        assert len(set(delays)) > 150


def test_retry_after_is_a_floor_with_a_little_jitter() -> None:
    policy = RetryPolicy(max_delay=1.0)
    delays = [backoff_delay(policy, 1, retry_after=7.0, rng=random.Random(i)) for i in range(50)]
    assert all(7.0 <= d <= 7.7 for d in delays)
    assert len(set(delays)) > 40


def test_retry_after_header_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.25 ") == 0.25
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-5") == 0.0
    in_ten = format_datetime(datetime.now(UTC) + timedelta(seconds=10), usegmt=True)
    assert 8 <= (parse_retry_after(in_ten) or 0) <= 10.5


def test_retry_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base_delay=-1)


def test_prices_longest_prefix_and_cached_tokens() -> None:
    table = PriceTable.defaults()
    sonnet = table.price("anthropic", "claude-sonnet-4-5-20250929")
    assert sonnet == ModelPrice(3.0, 15.0, 0.3, 3.75)
    assert table.price("openai", "gpt-4.1-mini-2025-04-14") == ModelPrice(0.4, 1.6, 0.1)
    assert table.price("openai", "gpt-4.1-2025-04-14") == ModelPrice(2.0, 8.0, 0.5)
    assert table.price("openai", "no-such-model") is None
    assert table.price("ollama", "llama3") is None
    usage = Usage(input_tokens=10_000, output_tokens=1_000, cached_input_tokens=6_000, cache_write_tokens=2_000)
    # 2000 fresh * 3 + 6000 cached * 0.3 + 2000 written * 3.75 + 1000 out * 15, per million
    assert table.cost("anthropic", "claude-sonnet-4-5", usage) == pytest.approx((6000 + 1800 + 7500 + 15000) / 1e6)


def test_user_prices_override_defaults(tmp_path: Path) -> None:
    path = PriceTable.defaults().write_user_copy(tmp_path / "prices.json")
    data = json.loads(path.read_text())
    data["openai"]["gpt-4.1-mini"]["input"] = 9.0
    data["ollama"] = {"": {"input": 0, "output": 0}}  # the empty prefix prices every model of a local server
    path.write_text(json.dumps(data))
    table = PriceTable.load(path)
    assert table.price("openai", "gpt-4.1-mini").input == 9.0  # type: ignore[union-attr]
    assert table.price("openai", "gpt-4o") == ModelPrice(2.5, 10.0, 1.25)  # untouched entries stay
    assert table.cost("ollama", "qwen2.5-vl:7b", Usage(1000, 100)) == 0.0
    # A second copy never overwrites the user's edits.
    PriceTable.defaults().write_user_copy(path)
    assert json.loads(path.read_text())["openai"]["gpt-4.1-mini"]["input"] == 9.0


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON (line 1"),
    ('{"openai": {"gpt-x": {"input": "cheap"}}}', "openai/gpt-x: a price needs numbers"),
    ('{"openai": ["gpt-x"]}', "'openai' must map model ids to prices"),
])
def test_broken_price_file_is_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        PriceTable.load(path)


def test_cost_meter_sums_per_model_and_flags_unpriced() -> None:
    meter = CostMeter()
    meter.add("anthropic", "claude-haiku-4-5", Usage(100, 10, 50), 0.001)
    meter.add("anthropic", "claude-haiku-4-5", Usage(200, 20), 0.002)
    assert meter.complete
    meter.add("ollama", "llama3", Usage(5, 5), None)
    assert meter.usage == Usage(305, 35, 50)
    assert meter.cost_usd == pytest.approx(0.003)
    assert not meter.complete
    assert meter.by_model["anthropic/claude-haiku-4-5"].calls == 2
    assert "unpriced" in meter.summary()


def test_settings_round_trip_and_validation() -> None:
    settings = LLMSettings.for_providers("anthropic", "gemini").with_provider(
        ProviderSettings("ollama", "openai", base_url="http://localhost:11434/v1", needs_key=False,
                         output_mode=OutputMode.JSON_TEXT))
    assert [str(r) for r in settings.chain("fast")] == ["anthropic/claude-haiku-4-5", "gemini/gemini-2.5-flash"]
    again = LLMSettings.from_dict(json.loads(json.dumps(settings.to_dict())))
    assert again == settings
    with pytest.raises(ValueError, match="no provider 'openai' is configured"):
        LLMSettings(settings.providers, {"fast": (ModelRef("openai", "gpt-4.1"),)})
    with pytest.raises(ValueError, match="must be written provider/model"):
        ModelRef.parse("gpt-4.1")
    with pytest.raises(ValueError, match="must start with http"):
        ProviderSettings("x", "openai", base_url="localhost:1234")
    with pytest.raises(ValueError, match="give a --base-url"):
        builtin_provider("ollama")
    assert builtin_provider("lmstudio", "http://127.0.0.1:1234/v1").needs_key is False
