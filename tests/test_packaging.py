"""The app bundle's inputs, checked without building it (packaging/smoke.sh tests a built bundle; CI runs both).

A spec that names a missing file, a .desktop entry a desktop rejects, or an icon out of step with its SVG only
shows up at build or install time, on someone else's machine; these checks take a second and need no PyInstaller.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import importlib.util
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from PIL import Image, ImageChops, ImageStat

from relay_desktop import resources

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "relay-desktop.spec"
DESKTOP_FILE = ROOT / "resources" / "relay-desktop.desktop"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def _load(name: str) -> ModuleType:
    # By path: packaging/ must stay a plain folder, since a package of that name would shadow the `packaging`
    # library that pip and pytest import.
    spec = importlib.util.spec_from_file_location(f"relay_packaging_{name}", PACKAGING / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_icons = _load("make_icons")


def test_spec_is_python_and_its_files_exist() -> None:
    source = SPEC.read_text("utf-8")
    ast.parse(source, str(SPEC))
    for name in ("relay_desktop_main.py", "make_icons.py"):
        assert name.removesuffix(".py") in source
        assert (PACKAGING / name).is_file()
    assert '"resources"' in source and (ROOT / "resources").is_dir()
    assert '"pyproject.toml"' in source
    assert not (PACKAGING / "__init__.py").exists()


def test_entry_script_runs_the_installed_command() -> None:
    # The bundle and `pip install` must start the same function.
    target = PYPROJECT["project"]["scripts"]["relay-desktop"]
    module, _, function = target.partition(":")
    source = (PACKAGING / "relay_desktop_main.py").read_text("utf-8")
    assert f"from {module} import {function}" in source
    ast.parse(source)


def _tracked_package_files() -> list[str]:
    if shutil.which("git") and (ROOT / ".git").exists():
        listed = subprocess.run(["git", "ls-files", "relay_desktop"], cwd=ROOT, capture_output=True, text=True,
                                check=False)
        if listed.returncode == 0 and listed.stdout.strip():
            return listed.stdout.split()
    return [str(p.relative_to(ROOT)) for p in (ROOT / "relay_desktop").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts]


def test_every_data_file_of_the_package_ships() -> None:
    # The spec bundles exactly pyproject's package-data globs, as the wheel does: a new data file must be listed.
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["relay_desktop"]
    data_files = [path.removeprefix("relay_desktop/") for path in _tracked_package_files() if not path.endswith(".py")]
    assert data_files, "no data files found: prices.json at least should be there"
    unlisted = [path for path in data_files if not any(fnmatch.fnmatch(path, pattern) for pattern in globs)]
    assert unlisted == [], f"add these to [tool.setuptools.package-data] in pyproject.toml: {unlisted}"


def test_data_files_and_the_packaging_extra() -> None:
    for sources in PYPROJECT["tool"]["setuptools"]["data-files"].values():
        for source in sources:
            assert (ROOT / source).is_file(), source
    extra = PYPROJECT["project"]["optional-dependencies"]["packaging"]
    assert any(requirement.lower().startswith("pyinstaller") for requirement in extra)


def test_scripts_are_executable_bash() -> None:
    for name in ("build.sh", "smoke.sh"):
        script = PACKAGING / name
        assert script.stat().st_mode & 0o111, f"{name} is not executable"
        if shutil.which("bash"):
            checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
            assert checked.returncode == 0, checked.stderr


def _desktop_entry() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_desktop_entry() -> None:
    entry = _desktop_entry()
    for key in ("Type", "Name", "Exec", "Icon"):
        assert entry.get(key), f"{key} is missing"
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] in PYPROJECT["project"]["scripts"]
    assert entry["Icon"] == resources.ICON_NAME
    assert entry["Categories"].endswith(";")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils is not installed")
def test_desktop_entry_passes_desktop_file_validate() -> None:
    checked = subprocess.run(["desktop-file-validate", str(DESKTOP_FILE)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("size", make_icons.PNG_SIZES)
def test_icon_pngs_have_their_sizes(size: int) -> None:
    with Image.open(make_icons.png_path(size)) as image:
        assert image.format == "PNG"
        assert image.size == (size, size)
        assert image.mode == "RGBA"
        assert image.getpixel((0, 0))[3] == 0, "the corners should be transparent (rounded square)"


def test_icon_pngs_match_the_svg(qapp: object, tmp_path: Path) -> None:
    # Someone edited the SVG without running packaging/make_icons.py. `qapp` first: make_icons would otherwise
    # create a QGuiApplication, and widget tests need a QApplication.
    fresh = tmp_path / "fresh.png"
    make_icons.render_png(make_icons.SVG, fresh, 256)
    with Image.open(fresh) as rendered, Image.open(make_icons.png_path(256)) as committed:
        difference = ImageStat.Stat(ImageChops.difference(rendered.convert("RGBA"), committed.convert("RGBA")))
    assert max(difference.mean) < 2, "re-render the PNGs: python packaging/make_icons.py"


def test_windows_and_macos_icons_can_be_made(tmp_path: Path) -> None:
    ico = make_icons.write_ico(make_icons.png_path(512), tmp_path / "app.ico")
    icns = make_icons.write_icns(make_icons.png_path(512), tmp_path / "app.icns")
    with Image.open(ico) as image:
        assert image.format == "ICO"
        assert (256, 256) in image.info["sizes"] and (16, 16) in image.info["sizes"]
    with Image.open(icns) as image:
        assert image.format == "ICNS"


def test_app_icon_path_finds_the_icon_in_a_checkout() -> None:
    path = resources.app_icon_path()
    assert path is not None
    assert path == make_icons.png_path(512)


def test_app_icon_path_prefers_the_bundles_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Inside the PyInstaller bundle, sys._MEIPASS is the bundle's _internal folder.
    bundled = tmp_path / "resources" / "icons" / "hicolor" / "256x256" / "apps" / "relay-desktop.png"
    bundled.parent.mkdir(parents=True)
    shutil.copy(make_icons.png_path(256), bundled)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources.app_icon_path() == bundled


def test_every_library_the_app_imports_is_a_declared_dependency() -> None:
    """Issue 26, tried in a fresh clone: the window crashed with "No module named 'numpy'" — the recording mask
    imported a library only the ocr extra brought in. Every third-party import in the package is a required
    dependency, unless it sits in a try/except ImportError (an optional extra)."""
    import ast
    import importlib.metadata
    import re
    import sys
    import tomllib

    root = Path(__file__).resolve().parents[1]
    declared = {re.split(r"[<>=!\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-")
                for spec in tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]}
    providers = importlib.metadata.packages_distributions()
    missing: dict[str, str] = {}
    for path in (root / "relay_desktop").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        optional: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any("ImportError" in ast.unparse(h.type or ast.Name("")) or
                                                 "ModuleNotFoundError" in ast.unparse(h.type or ast.Name(""))
                                                 for h in node.handlers):
                optional.update(id(n) for stmt in node.body for n in ast.walk(stmt))
        for node in ast.walk(tree):
            if id(node) in optional:
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("relay_desktop", "tests"):
                    continue
                dists = {d.lower().replace("_", "-") for d in providers.get(top, [top])}
                if not dists & declared:
                    missing[top] = str(path.relative_to(root))
    assert missing == {}, f"imported but not declared in pyproject's dependencies: {missing}"
