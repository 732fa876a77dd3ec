"""The answer to a question task in the window (issue 25): shown prominently at the run's end, selectable, with a
copy button, and gone when the next run starts. A scripted model on the virtual phone; Qt offscreen."""

from __future__ import annotations

import asyncio
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from relay_desktop.agent.events import RunFinished
from relay_desktop.llm.types import LLMRequest, Role
from relay_desktop.ui.main_window import MainWindow
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import act, wifi_agent


def question_agent(role: Role, request: LLMRequest) -> dict[str, Any]:
    """Asked "When does my first alarm ring?", it answers at once."""
    if role == "fast" and request.contract is not None and request.contract.name == "act":
        return act({"action": "complete", "summary": "Read the first alarm in Clock", "answer": "6:30"})
    return wifi_agent(role, request)


def test_the_answer_shows_prominently_at_the_runs_end_and_copies(window: MainWindow,
                                                                   qt_loop: qasync.QEventLoop) -> None:
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
    panel = window.panel
    shown_while_running: list[bool] = []

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        window.models = ScriptedModels(question_agent)
        assert panel.answer_box.isHidden()                    # no answer before any run
        for task in ("When does my first alarm ring?", "Turn on Wi-Fi"):
            count = len(finished)
            panel.task.setPlainText(task)
            panel.start.click()
            await asyncio.sleep(0)
            shown_while_running.append(not panel.answer_box.isHidden())
            while len(finished) == count:
                await asyncio.sleep(0.05)
            if task.startswith("When"):
                assert not panel.answer_box.isHidden()
                assert panel.answer.text() == "6:30"
                assert panel.answer.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
                assert panel.answer.font().pointSizeF() > panel.stats["step"].font().pointSizeF()
                panel.copy_answer.click()
                assert QGuiApplication.clipboard().text() == "6:30"
                window.models = ScriptedModels(wifi_agent)
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert finished[0].answer == "6:30" and finished[1].answer == ""
    assert shown_while_running == [False, False]            # the first run's answer went when the second began
    assert panel.answer_box.isHidden()                      # a run without a question shows none
    assert any(line == "Answer: 6:30" for line in "\n".join(window.log_view.lines()).splitlines())
