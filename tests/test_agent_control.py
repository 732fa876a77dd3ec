"""Run control: pause holds the run at its next checkpoint, resume lets it go on, stop cancels it and returns
only once it has finished, and the user's messages reach the run."""

from __future__ import annotations

import asyncio

import pytest

from relay_desktop.agent.control import RunControl, RunStopped

TIMEOUT = 5.0
HOLD = 0.1      # how long a held checkpoint is watched to stay held


async def _run_through_checkpoint(control: RunControl, reached: asyncio.Event) -> str:
    reached.set()
    await control.checkpoint()
    return "passed"


async def test_checkpoint_passes_while_running() -> None:
    control = RunControl()
    task = asyncio.create_task(_run_through_checkpoint(control, asyncio.Event()))
    control.bind(task)
    assert await asyncio.wait_for(task, TIMEOUT) == "passed"


async def test_checkpoint_holds_while_paused_and_continues_after_resume() -> None:
    control = RunControl()
    reached = asyncio.Event()
    task = asyncio.create_task(_run_through_checkpoint(control, reached))
    control.bind(task)
    control.pause()
    assert control.state == "paused"
    await asyncio.wait_for(reached.wait(), TIMEOUT)
    done, _ = await asyncio.wait({task}, timeout=HOLD)
    assert not done, "a paused run went past its checkpoint"
    control.resume()
    assert control.state == "running"
    assert await asyncio.wait_for(task, TIMEOUT) == "passed"


async def test_pause_before_bind_or_resume_while_running_changes_nothing() -> None:
    control = RunControl()
    control.pause()                                   # idle: nothing to pause
    assert control.state == "idle"
    await asyncio.wait_for(control.checkpoint(), TIMEOUT)
    task = asyncio.create_task(asyncio.sleep(0))
    control.bind(task)
    control.resume()
    assert control.state == "running"
    await asyncio.wait_for(control.checkpoint(), TIMEOUT)
    await task


async def test_stop_cancels_a_long_await_and_returns_after_the_task_finished() -> None:
    control = RunControl()
    started = asyncio.Event()
    cleanup: list[str] = []

    async def run() -> None:
        try:
            started.set()
            await asyncio.Event().wait()               # an LLM call that never answers
        finally:
            for _ in range(3):                         # the run's last events take a few turns of the loop
                await asyncio.sleep(0)
            cleanup.append("done")

    task = asyncio.create_task(run())
    control.bind(task)
    await asyncio.wait_for(started.wait(), TIMEOUT)
    await asyncio.wait_for(control.stop(), TIMEOUT)
    assert task.done() and task.cancelled()
    assert cleanup == ["done"]
    assert control.stop_requested and control.state == "stopping"
    with pytest.raises(RunStopped):
        await control.checkpoint()


async def test_a_second_stop_also_returns_only_after_the_task_finished() -> None:
    control = RunControl()
    started = asyncio.Event()

    async def run() -> None:
        try:
            started.set()
            await asyncio.Event().wait()
        finally:
            for _ in range(3):
                await asyncio.sleep(0)

    task = asyncio.create_task(run())
    control.bind(task)
    await asyncio.wait_for(started.wait(), TIMEOUT)
    first = asyncio.create_task(control.stop())          # the Stop button ...
    await asyncio.sleep(0)
    await asyncio.wait_for(control.stop(), TIMEOUT)      # ... then Ctrl+C or closing the window
    try:
        assert task.done(), "the second stop() returned while the run was still finishing"
    finally:
        await asyncio.wait_for(first, TIMEOUT)


async def test_stop_wakes_a_paused_checkpoint_with_run_stopped() -> None:
    control = RunControl()
    reached = asyncio.Event()
    other = asyncio.create_task(asyncio.Event().wait())     # the bound run; the waiter below is a helper of it
    control.bind(other)
    control.pause()
    waiter = asyncio.create_task(_run_through_checkpoint(control, reached))
    await asyncio.wait_for(reached.wait(), TIMEOUT)
    await asyncio.wait_for(control.stop(), TIMEOUT)
    assert other.cancelled()
    with pytest.raises(RunStopped):
        await asyncio.wait_for(waiter, TIMEOUT)


async def test_checkpoint_raises_after_stop_on_an_unbound_control() -> None:
    control = RunControl()
    await asyncio.wait_for(control.checkpoint(), TIMEOUT)
    await asyncio.wait_for(control.stop(), TIMEOUT)
    assert control.stop_requested
    with pytest.raises(RunStopped):
        await control.checkpoint()


async def test_stop_from_inside_the_run_does_not_cancel_it() -> None:
    control = RunControl()

    async def run() -> str:
        await control.stop()
        try:
            await control.checkpoint()
        except RunStopped:
            return "stopped at the checkpoint"
        return "went on"

    task = asyncio.create_task(run())
    control.bind(task)
    assert await asyncio.wait_for(task, TIMEOUT) == "stopped at the checkpoint"


def test_steer_queues_trimmed_messages_until_taken() -> None:
    control = RunControl()
    control.steer("  use the Settings app  ")
    control.steer("   ")
    control.steer("then go back")
    assert control.take_messages() == ["use the Settings app", "then go back"]
    assert control.take_messages() == []


async def test_on_change_reports_each_state_once_with_its_reason() -> None:
    control = RunControl()
    seen: list[tuple[str, str]] = []
    control.on_change = lambda state, reason: seen.append((state, reason))
    task = asyncio.create_task(asyncio.Event().wait())
    control.bind(task)
    control.bind(task)
    control.pause("taken over")
    control.pause()
    control.resume()
    control.resume()
    control.pause()
    await asyncio.wait_for(control.stop(), TIMEOUT)
    await asyncio.wait_for(control.stop(), TIMEOUT)
    control.finished()
    control.finished()
    assert seen == [("running", ""), ("paused", "taken over"), ("running", "resumed"),
                    ("paused", "paused by the user"), ("stopping", "stopped by the user"), ("finished", "")]
    assert task.cancelled()
