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


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports when it runs, in functions too; not those only for type checkers."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in known}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles_outside_the_virtual_phone() -> None:
    """Issue 26: counting imports inside functions (an import placed in a function to dodge a circle is still
    one). A package's __init__ is left out as an importer: it gathers its modules by design."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "sim" not in p.relative_to(PACKAGE).parts}
    known = set(files)
    graph = {name: (set() if path.name == "__init__.py" else _runtime_imports(path, known) - {name})
             for name, path in files.items()}
    assert _cycles(graph) == []
