"""Recording the phone's screen: `run --record FILE.mp4` and the window's Record button write an MP4 that plays
(a key frame first, the duration the recording lasted), and a run's recording is linked from its history."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import av
import pytest
import qasync

from relay_desktop.agent.events import RunFinished
from relay_desktop.cli import main
from relay_desktop.ui.main_window import MainWindow
from tests.conftest import AdbTestServer


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> Path:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    server = tmp_path / "scrcpy-server"                    # the virtual phone runs its own scrcpy server
    server.write_bytes(b"scrcpy server stand-in")
    monkeypatch.setenv("SCRCPY_SERVER_PATH", str(server))
    monkeypatch.setenv("SCRCPY_SERVER_VERSION", "3.3.4")
    return tmp_path


def _video(path: Path) -> tuple[bool, float, int]:
    """(the first packet is a key frame, seconds from the first frame to the last, frames decoded)."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        packets = [p for p in container.demux(stream) if p.size]
        first_key = packets[0].is_keyframe
        times = [float(p.pts * p.time_base) for p in packets]
    with av.open(str(path)) as container:
        frames = sum(1 for _ in container.decode(video=0))
    return first_key, max(times) - min(times), frames


def test_run_record_writes_a_playable_video_the_history_links_to(home: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    video = home / "wifi.mp4"
    code = main(["run", "Turn on Wi-Fi", "--sim", "--fallback", "--pace", "0.8", "--record", str(video)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"Recording saved: {video}" in out
    first_key, seconds, frames = _video(video)
    assert first_key and frames >= 3
    run_id = out.rsplit("Saved as run ", 1)[1].split()[0]
    assert main(["runs", "show", run_id, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    elapsed = shown["run"]["elapsed_s"]
    assert abs(seconds - elapsed) < 1.5, (seconds, elapsed)      # the whole run, its still ending included
    assert shown["settings"]["recording"] == str(video.resolve())
    report = home / "r.html"
    assert main(["runs", "export", run_id, "-o", str(report)]) == 0
    assert video.resolve().as_uri() in report.read_text(encoding="utf-8")


@pytest.mark.parametrize(("extra", "message"), [
    (["--no-mirror"], "--record needs the live mirror"),
    ([], "give a file name ending in .mp4"),
])
def test_a_recording_that_cannot_be_made_is_refused_before_the_phone(
        extra: list[str], message: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = home / ("run.mp4" if extra else "run.txt")
    assert main(["run", "Turn on Wi-Fi", "--sim", "--fallback", "--record", str(target), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not target.exists()


def test_the_record_button_shows_it_is_recording_and_saves_the_video(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> Path:
        try:
            assert not window.record_button.isEnabled()               # nothing to record without a phone
            assert await window.connect_device("virtual")
            assert window.record_button.isEnabled()
            window.record_button.click()
            for _ in range(100):
                if window.recording is not None:
                    break
                await asyncio.sleep(0.02)
            assert window.recording is not None and window.record_status.isVisible()
            finished: list[str] = []
            window.bus.subscribe(lambda e: finished.append(e.run_id) if isinstance(e, RunFinished) else None)
            window.panel.task.setPlainText("Turn on Wi-Fi")             # a run while recording (rule-based)
            window.settings = window.settings.__class__(pace_s=0.5)
            window.panel.start.click()
            for _ in range(400):
                if finished:
                    break
                await asyncio.sleep(0.05)
            assert finished
            await asyncio.sleep(0.5)
            shown = window.record_status.text()
            assert shown.startswith("● REC 0:") and shown != "● REC 0:00", shown     # the time runs
            window.record_button.click()
            for _ in range(200):
                if window.recording is None and window.last_recording is not None:
                    break
                await asyncio.sleep(0.02)
            assert window.recording is None and not window.record_status.isVisible()
            assert window.last_recording is not None
            linked = window.store.get_run(finished[0]).settings.get("recording")
            assert linked == str(window.last_recording.resolve())
            await window.history.open(finished[0])                     # History offers to play it
            assert window.history.play_button.isEnabled()
            return window.last_recording
        finally:
            await window.shutdown()

    path = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    first_key, seconds, _ = _video(path)
    assert first_key and seconds > 1.5, seconds
    assert any(line.startswith(f"· Recording saved: {path}") for line in window.log_view.lines())
