"""Run history: every run's steps (screenshots, element maps, prompts, responses, actions, results) on disk,
recorded from the agent's events, readable by the window and the command line, exportable as HTML."""

from relay_desktop.runs.export import export_html, render_html
from relay_desktop.runs.recorder import RunRecorder
from relay_desktop.runs.store import RunNotFound, RunRecord, RunStore, RunSummary, StepRecord

__all__ = ["RunNotFound", "RunRecord", "RunRecorder", "RunStore", "RunSummary", "StepRecord", "export_html",
           "render_html"]
