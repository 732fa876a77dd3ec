"""Boundaries the design relies on, checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "relay_desktop"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_ui_package_imports_qt() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "ui" in path.relative_to(PACKAGE).parts[:1]:
            continue
        qt = {m for m in imported_modules(path) if m.split(".")[0] in {"PySide6", "qasync", "shiboken6"}}
        if qt:
            offenders.append(f"{path.relative_to(PACKAGE)}: {sorted(qt)}")
    assert offenders == []


def test_the_device_layer_does_not_depend_on_the_virtual_phone() -> None:
    # The device layer must work the same for a real phone: it may not reach into the simulator.
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "device").rglob("*.py")
                 if any(m.startswith("relay_desktop.sim") for m in imported_modules(p))]
    assert offenders == []


def test_perception_reads_dumps_and_pictures_only() -> None:
    # Perception turns dumps into element maps for any source (phone, simulator, saved file): it may not
    # reach into the device layer or the simulator, so it stays testable and reusable offline.
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "perception").rglob("*.py")
                 if any(m.startswith(("relay_desktop.sim", "relay_desktop.device")) for m in imported_modules(p))]
    assert offenders == []


def test_llm_knows_nothing_of_phones() -> None:
    # The model layer serves the agent, not the other way round: it may not depend on the device layer, the
    # simulator, perception or the agent, so any caller (agent, settings window, check-provider) can use it.
    banned = ("relay_desktop.sim", "relay_desktop.device", "relay_desktop.perception", "relay_desktop.agent",
              "relay_desktop.runs", "relay_desktop.ui")
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "llm").rglob("*.py")
                 if any(m.startswith(banned) for m in imported_modules(p))]
    assert offenders == []


def test_sdk_imports_stay_in_their_provider_module() -> None:
    # Provider differences stay inside one module per provider.
    sdks = {"anthropic": "anthropic.py", "openai": "openai.py", "google": "gemini.py"}
    offenders = []
    for path in (PACKAGE / "llm").rglob("*.py"):
        for module in imported_modules(path):
            root = module.split(".")[0]
            if root in sdks and not (path.parent.name == "providers" and path.name == sdks[root]):
                offenders.append(f"{path.relative_to(PACKAGE)}: {module}")
    assert offenders == []


def test_the_agent_drives_any_phone_through_its_ports() -> None:
    # The orchestrator must run the same on a real phone: it may not reach into the simulator, and it does not
    # know who watches it (window, CLI, run store are event subscribers).
    banned = ("relay_desktop.sim", "relay_desktop.runs", "relay_desktop.ui", "relay_desktop.cli")
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "agent").rglob("*.py")
                 if any(m.startswith(banned) for m in imported_modules(p))]
    assert offenders == []


def test_run_history_only_records_events() -> None:
    # The run store reads the agent's events; it never talks to a phone or a model.
    banned = ("relay_desktop.sim", "relay_desktop.device", "relay_desktop.llm.router", "relay_desktop.llm.providers",
              "relay_desktop.ui")
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "runs").rglob("*.py")
                 if any(m.startswith(banned) for m in imported_modules(p))]
    assert offenders == []


def test_the_mirror_works_for_any_phone() -> None:
    # The mirror speaks scrcpy to whatever is on the other end of adb: it may not reach into the simulator.
    offenders = [str(p.relative_to(PACKAGE)) for p in (PACKAGE / "mirror").rglob("*.py")
                 if any(m.startswith(("relay_desktop.sim", "relay_desktop.agent", "relay_desktop.ui"))
                        for m in imported_modules(p))]
    assert offenders == []
