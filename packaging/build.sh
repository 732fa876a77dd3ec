#!/usr/bin/env bash
# Build the app bundle into dist/relay-desktop/ (on macOS also dist/Relay Desktop.app).
#
#   packaging/build.sh [extra PyInstaller options]
#
# Uses the project's venv (.venv, or $PYTHON): the bundle holds exactly what that venv has installed, so
# build from a venv made by `pip install -e ".[packaging]"`, not from a system Python.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-.venv/bin/python}"
if [ ! -x "$PYTHON" ] && [ -x .venv/Scripts/python.exe ]; then
    PYTHON=.venv/Scripts/python.exe  # a Windows venv (Git Bash)
fi
if ! "$PYTHON" -c "import PyInstaller, relay_desktop" 2>/dev/null; then
    echo "build.sh: $PYTHON lacks PyInstaller or relay_desktop; run: $PYTHON -m pip install -e \".[packaging]\"" >&2
    echo "          (or point PYTHON at another venv's python)" >&2
    exit 2
fi

started=$(date +%s)
# --clean: a stale analysis cache would ship the previous build's modules after a dependency changes.
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/relay-desktop.spec "$@"
echo "Built dist/relay-desktop/ in $(( $(date +%s) - started )) s ($(du -sh dist/relay-desktop | cut -f1))."
