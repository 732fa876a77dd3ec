"""A run as one self-contained HTML report: summary, then every step with its screenshot and actions drawn.

The file needs nothing else (images inlined as data URIs, styles inline, no scripts), so it can be mailed or
attached to a bug report. Every text in it came from a phone screen or a model: all of it is escaped.
Actions are drawn as SVG over the screenshot in device coordinates (the SVG's viewBox is the device screen,
so a JPEG sent at half size lines up without any arithmetic).
"""

from __future__ import annotations

import base64
import json
import time
from html import escape
from pathlib import Path
from typing import Any

from relay_desktop.agent.steps.actions import finger_vector
from relay_desktop.runs.store import RunRecord, RunStore, StepRecord, withheld_text

__all__ = ["export_html", "render_html"]

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;background:#fafafa}
h1{font-size:1.4em}h2{font-size:1.1em;margin:0 0 .4em}table.sum td{padding:2px 12px 2px 0}
.step{display:flex;gap:18px;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px;margin:14px 0}
.shot{position:relative;flex:0 0 300px}.shot img{width:300px;display:block;border-radius:4px}
.shot svg{position:absolute;left:0;top:0;width:300px;height:100%}.body{flex:1;min-width:0}
.ok{color:#1a7f37}.bad{color:#c62828}pre{white-space:pre-wrap;word-break:break-word;background:#f3f3f3;
padding:8px;border-radius:4px;max-height:400px;overflow:auto}.muted{color:#666}details{margin:.3em 0}
"""
_OUTCOME = {"success": "ok", "interrupted": "bad", "failed": "bad", "error": "bad", "max_steps": "bad"}


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _overlay(step: StepRecord) -> str:
    if step.screen_size is None:
        return ""
    _, _, width, height = step.screen_size
    shapes = []
    radius = max(12, width // 40)
    for action in step.actions:
        colour = "#1e88e5" if action.get("ok") is not False else "#e53935"
        bounds, point = action.get("bounds"), action.get("point")
        if bounds:
            left, top, right, bottom = bounds
            shapes.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="none" '
                          f'stroke="{colour}" stroke-width="{radius // 3}"/>')
        kind = (action.get("action") or {}).get("action")
        direction = (action.get("action") or {}).get("direction")
        if kind in ("swipe", "scroll") and direction:
            cx, cy = ((bounds[0] + bounds[2]) // 2, (bounds[1] + bounds[3]) // 2) if bounds else (width // 2,
                                                                                                 height // 2)
            finger = finger_vector(kind, direction)
            length = height // 5
            x2, y2 = cx + finger[0] * length, cy + finger[1] * length
            shapes.append(f'<line x1="{cx}" y1="{cy}" x2="{x2}" y2="{y2}" stroke="{colour}" '
                          f'stroke-width="{radius // 2}" marker-end="url(#arrow)"/>')
        elif point:
            shapes.append(f'<circle cx="{point[0]}" cy="{point[1]}" r="{radius}" fill="{colour}" fill-opacity="0.45" '
                          f'stroke="#fff" stroke-width="{radius // 4}"/>')
    marker = ('<defs><marker id="arrow" markerWidth="4" markerHeight="4" refX="2" refY="2" orient="auto">'
              '<path d="M0,0 L4,2 L0,4 z" fill="#1e88e5"/></marker></defs>')
    return (f'<svg viewBox="0 0 {width} {height}" preserveAspectRatio="none" role="img" '
            f'aria-label="actions of this step">{marker}{"".join(shapes)}</svg>')


def _step_html(store: RunStore, step: StepRecord) -> str:
    shot = ""
    path = store.screenshot_path(step)
    if path is not None and path.exists():
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        shot = f'<div class="shot"><img src="data:image/jpeg;base64,{data}" alt="screen at step {step.step}">' \
               f"{_overlay(step)}</div>"
    elif step.withheld:
        shot = f'<p class="muted">{_e(withheld_text(step.withheld))}</p>'
    actions = "".join(
        f'<li class="{"ok" if a.get("ok") else "bad"}">{_e(a.get("description", ""))} — {_e(a.get("message", ""))}'
        f"</li>" for a in step.actions) or '<li class="muted">no action</li>'
    checks = "".join(f'<li class="{"ok" if v["ok"] else "bad"}">{_e(v["check"])}: {_e(v["reason"])}</li>'
                     for v in step.verifications)
    plan = step.plan or {}
    who = "fallback planner" if step.source == "fallback" else f"replayed ({step.model})" \
        if step.source == "routine" else f"{step.model}, {step.latency_ms / 1000:.1f} s"
    parts = [f"<h2>Step {step.step} <span class='muted'>· {_e(step.app)} · {_e(who)}</span></h2>"]
    if plan.get("thinking") or step.thinking:
        parts.append(f"<p>{_e(step.thinking or plan.get('thinking', ''))}</p>")
    if step.guidance:
        parts.append(f"<details><summary>Planning guidance</summary><pre>{_e(step.guidance)}</pre></details>")
    parts.append(f"<ul>{actions}</ul>")
    if checks:
        parts.append(f"<ul>{checks}</ul>")
    if step.prompt:
        parts.append(f"<details><summary>Prompt</summary><pre>{_e(step.prompt)}</pre></details>")
    if step.response:
        parts.append(f"<details><summary>Response</summary><pre>{_e(step.response)}</pre></details>")
    if step.element_map:
        lines = [f'{el["id"]} {el["role"]} "{el["label"]}"' for el in step.element_map.get("elements", [])]
        parts.append(f"<details><summary>Element map ({len(lines)})</summary><pre>{_e(chr(10).join(lines))}"
                     "</pre></details>")
    return f'<section class="step">{shot}<div class="body">{"".join(parts)}</div></section>'


def render_html(store: RunStore, record: RunRecord) -> str:
    s = record.summary
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s.started_at))
    rows = [("Outcome", f'<span class="{_OUTCOME.get(s.outcome, "")}">{_e(s.outcome)}</span> — {_e(s.reason)}'),
            *([("Answer", f"<strong>{_e(s.answer)}</strong>")] if s.answer else []),
            ("Driven by", _e(s.driver or "–")), ("Started", _e(started)), ("Device", _e(s.serial)),
            ("Steps", _e(s.steps)),
            ("Time", f"{s.elapsed_s:.1f} s"), ("Tokens", f"{s.input_tokens:,} in, {s.output_tokens:,} out"),
            ("Cost", f"${s.cost_usd:.4f}")]
    recording = record.settings.get("recording")
    if recording:
        rows.append(("Recording", f'<a href="{_e(Path(recording).as_uri())}">{_e(Path(recording).name)}</a>'))
    summary = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
    settings = _e(json.dumps(record.settings, indent=1, ensure_ascii=False))
    log = "\n".join(f"[{e['level']}] step {e['step'] or '-'}: {e['message']}" for e in record.log)
    steps = "".join(_step_html(store, step) for step in record.steps)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Relay run {_e(s.id)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{_e(s.task)}</h1><table class='sum'>{summary}</table>"
            f"<details><summary>Settings</summary><pre>{settings}</pre></details>"
            f"<details><summary>Run log</summary><pre>{_e(log)}</pre></details>{steps}"
            f"<p class='muted'>Relay Desktop run {_e(s.id)}</p></body></html>")


def export_html(store: RunStore, run_id: str, out: Path) -> Path:
    record = store.get_run(run_id)
    out.write_text(render_html(store, record), encoding="utf-8")
    return out
