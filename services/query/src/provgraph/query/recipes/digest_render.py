"""The digest as Markdown (for a chat or a wiki) or as plain text (for a terminal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_ITEMS = (
    ("dataset_versions", "New dataset versions"),
    ("model_versions", "New model versions"),
    ("status_changes", "Model status changes"),
    ("deployments", "Deployments"),
    ("feedback", "Deployment feedback"),
)


def _run(brief: Mapping[str, Any]) -> str:
    label = brief.get("name") or brief["id"]
    number = f" #{brief['run_number']}" if brief.get("run_number") is not None else ""
    error = brief.get("error")
    why = f" — {error['type']}: {error['message']}" if error and error.get("type") else ""
    return f"{label}{number} ({brief['id']}){why}"


def _item(item: Mapping[str, Any]) -> str:
    what = item.get("id") or "?"
    extra = f" → {item['to_status']}" if item.get("to_status") else ""
    extra += f" ({item['model_version']})" if item.get("model_version") else ""
    verb = item["event_type"].rsplit(".", 1)[-1]
    return f"{item['at'][:16].replace('T', ' ')} {what}{extra} {verb} by {item['person']}"


def _section(title: str, lines: Sequence[str], markdown: bool) -> list[str]:
    head = f"### {title}" if markdown else f"{title}:"
    bullet = "- " if markdown else "  "
    return [head, *([bullet + line for line in lines] or [bullet + "none"]), ""]


def _people(report: Mapping[str, Any], markdown: bool) -> list[str]:
    lines: list[str] = []
    for entry in report["people"]:
        for key in ("started", "finished", "failed", "aborted", "running"):
            for brief in entry[key]:
                lines.append(f"{entry['person']} {key}: {_run(brief)}")
    return _section("Runs by person", lines, markdown)


def render_digest(report: Mapping[str, Any], *, markdown: bool = False) -> str:
    """One page: runs by person, stalled, repeated failures, missing conclusions, runs
    trained on data whose gates failed (when any did), the new versions and deployments, and
    accelerator-hours."""
    window = f"{report['since'][:16]} → {report['until'][:16]}".replace("T", " ")
    title = f"Digest of {', '.join(report['projects'])}, {window} UTC"
    out = [f"## {title}" if markdown else title, ""]
    out += _people(report, markdown)
    stalled = [
        f"{_run(r)}: no event for {r['idle_s'] / 3600:.1f} h (by {r['person']})"
        for r in report["stalled"]
    ]
    out += _section(f"Stalled (no event for {report['stalled_after_s'] / 3600:g} h)", stalled,
                    markdown)  # fmt: skip
    repeated = [
        f"{g['experiment']}: {g['failures']} failures ({', '.join(g['errors']) or 'no error type'})"
        for g in report["repeated_failures"]
    ]
    out += _section("Repeated failures", repeated, markdown)
    missing = [f"{_run(r)} by {r['person']}" for r in report["conclusion_missing"]]
    out += _section("Conclusion missing", missing, markdown)
    gated = [
        f"{_run({**r, 'error': None})} by {r['person']}: "
        + "; ".join(f"{f['dataset_version']} ({f['issue']})" for f in r["data_gates"])
        for r in report.get("trained_on_ungated_data") or ()
    ]
    if gated:  # only when some run did: a digest of clean data reads as before
        out += _section("Trained on data whose gates failed or were never recorded", gated,
                        markdown)  # fmt: skip
    for key, title in _ITEMS:
        out += _section(title, [_item(i) for i in report[key]], markdown)
    acc = report["accelerator_hours"]
    hours = [f"{p['person']}: {p['accelerator_hours']:.1f}" for p in acc["by_person"]]
    hours += [f"project {p['project']}: {p['accelerator_hours']:.1f}" for p in acc["by_project"]]
    if acc["runs_without_resources"]:
        hours.append(f"{acc['runs_without_resources']} run(s) recorded no devices_per_node")
    out += _section("Accelerator-hours", hours, markdown)
    if report["truncated"]:
        out.append("(truncated: more runs or events than one digest shows)")
    return "\n".join(out).rstrip() + "\n"
