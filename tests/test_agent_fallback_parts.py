"""The rule-based planner claims a task done only when every part of it was done and checked (issue 25).

A task is read clause by clause; a clause the planner cannot turn into a goal it can check on the screen — a
second errand, one in another app, a question — is an unmet part, so the run ends in ``fail`` naming that
part ("this part needs a model: …") rather than ``complete`` after the parts it did understand.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from relay_desktop.agent.fallback.planner import FallbackPlanner
from relay_desktop.agent.fallback.rules import read_task
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.test_agent_fallback import APPS, RUN_TIMEOUT_S, Run, _drive, _node, _screen, _step, _text


async def drive_goal(setup_task: str, goal: str) -> Run:
    """The planner on a task of its own, on the phone as ``setup_task`` leaves it (checked by that task)."""
    return await asyncio.wait_for(_drive(replace(TASKS_BY_ID[setup_task], goal=goal)), RUN_TIMEOUT_S)


def _needs_model(run: Run, part: str) -> None:
    assert run.final.action == "fail", f"claimed done:\n{run.transcript()}"
    reason = run.final.params["reason"]
    assert f"this part needs a model: '{part}'" in reason and "configure a model" in reason, reason


async def test_a_three_app_task_fails_at_once_naming_what_needs_a_model() -> None:
    run = await drive_goal("hard_julia_three_goals", TASKS_BY_ID["hard_julia_three_goals"].goal)
    # Nothing here is a goal it can check (starring, a second app's text, a third app's note): touch nothing.
    assert len(run.plans) == 1, run.transcript()
    _needs_model(run, "star julia rossi in my contacts")


async def test_a_text_with_an_errand_in_another_app_is_sent_but_not_called_done() -> None:
    run = await drive_goal("messages_text_bob", 'Text Bob "running late" and delete the Packing list note')
    assert run.check is not None and run.check.ok, f"the part it understands is still done:\n{run.transcript()}"
    _needs_model(run, "delete the packing list note")
    assert 'sent "running late"' in run.final.params["reason"]


async def test_a_second_action_in_the_same_app_is_not_covered_by_the_first() -> None:
    run = await drive_goal("contacts_delete_dave",
                           "Delete the contact Dave Kim and add Zoe Adams to my favourite contacts")
    _needs_model(run, "add zoe adams to my favourite contacts")


async def test_a_question_fails_at_once_instead_of_wandering() -> None:
    run = await drive_goal("question_alarms_on_count", TASKS_BY_ID["question_alarms_on_count"].goal)
    assert len(run.plans) == 1, run.transcript()
    _needs_model(run, "how many of my alarms are switched on?")


def test_each_part_of_a_task_is_a_goal_or_a_part_left_for_a_model() -> None:
    both = read_task("Add Lena Vogel to my contacts with the number 555-0190, then text her 'Welcome!'", APPS)
    assert both.action == "add" and not both.message and "text" not in both.verbs
    assert both.leftover == ("text her 'Welcome!'",)
    one = read_task("Text Bob 'late'", APPS)
    assert one.leftover == () and one.message == "late" and one.has_goal


def _brightness(value: int) -> Observation:
    bar = _node("Brightness level", "[60,900][1020,1000]", cls="android.widget.SeekBar",
                extra=f'range-min="0" range-max="255" range-current="{value}"')
    return _screen(_text("Display", "[0,100][1080,200]"), bar)


def test_a_slider_counts_as_set_only_once_it_reads_the_wanted_position() -> None:
    planner = FallbackPlanner("Turn the brightness down to 10%", APPS)
    assert _step(planner, _brightness(200)).action == "tap"
    # The tap went through but the slider did not move: not done, whatever the tap's own result says.
    assert _step(planner, _brightness(200)).action != "complete"
    done = _step(planner, _brightness(26))
    assert done.action == "complete" and "10%" in done.params["summary"]


def test_a_slider_that_reports_no_position_is_not_claimed() -> None:
    planner = FallbackPlanner("Turn the brightness down to 10%", APPS)
    silent = _screen(_node("Brightness level", "[60,900][1020,1000]", cls="android.widget.SeekBar"))
    tap, then = _step(planner, silent), _step(planner, silent)
    assert tap.action == "tap" and then.action == "fail" and "not checked" in then.params["reason"]


def test_a_slider_that_shows_its_value_but_not_its_range_is_done_once_the_tap_moved_it() -> None:
    planner = FallbackPlanner("Turn the brightness down to 10%", APPS)

    def bar(value: int) -> Observation:
        return _screen(f'<node text="{value}" resource-id="" class="android.widget.SeekBar" package="com.example" '
                       'content-desc="Brightness level" clickable="true" enabled="true" bounds="[60,900][1020,1000]"/>')

    assert _step(planner, bar(128)).action == "tap"
    assert _step(planner, bar(128)).action != "complete"
    assert _step(planner, bar(17)).action == "complete"
