"""Issue 25: one confirmation per deletion. Deleting a note asked the user twice — for the toolbar's Delete and
again for the app's own "Delete this note?" dialog that it opened. The dialog's Delete carries out the deletion
the user just allowed; it is not a second decision. Run on the virtual phone through Google's adb server."""

from __future__ import annotations

import re

from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.apps.keep import PACKAGE, KeepNotes
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_harness import Script, complete, run_task, tap
from tests.agent_scripts import act, element_id, screen_text
from tests.conftest import AdbTestServer


def _ids(request: LLMRequest, label: str) -> list[str]:
    return re.findall(rf'^(e\d+) \w+ "{label}"', screen_text(request), re.M)


async def _delete_a_note(adb_server: AdbTestServer, sim: VirtualPhoneService,
                         answers: list[bool]) -> tuple[list[str], KeepNotes]:
    keep: KeepNotes = sim.phone.apps[PACKAGE]  # type: ignore[assignment]
    asked: list[str] = []

    async def confirm(reason: str) -> bool:
        asked.append(reason)
        return answers[len(asked) - 1]

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            return act({"action": "launch_app", "app": "Keep Notes"})
        if n == 2:
            return tap(element_id(request, "Book ideas") or "e1")
        if n == 3:
            return tap(_ids(request, "Delete")[0])                 # the toolbar's Delete
        if n == 4 and "Delete this note?" in screen_text(request):
            return tap(_ids(request, "Delete")[-1])                # the dialog's own Delete
        return complete()

    device = await adb_server.server().device(sim.serial)
    await run_task(device, Script(fast), planning=False, timeout=40, handlers=Handlers(confirm=confirm))
    return asked, keep


async def test_a_confirmed_delete_covers_the_apps_own_delete_dialog(adb_server: AdbTestServer,
                                                                    sim: VirtualPhoneService) -> None:
    asked, keep = await _delete_a_note(adb_server, sim, [True, True])
    assert len(asked) == 1, asked
    assert all(n.title != "Book ideas" for n in keep.notes)       # and the note is gone


async def test_a_refused_delete_is_asked_once_and_deletes_nothing(adb_server: AdbTestServer,
                                                                  sim: VirtualPhoneService) -> None:
    asked, keep = await _delete_a_note(adb_server, sim, [False, False])
    assert len(asked) == 1 and any(n.title == "Book ideas" for n in keep.notes)
