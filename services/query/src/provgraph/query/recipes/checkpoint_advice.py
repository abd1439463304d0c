"""How often to save checkpoints, from what was recorded (pure: plain data in, a dict out).

Inputs are the runs of the question (one run, an experiment's runs or a project's), each as
the read `read.digest_reads.CheckpointReads` returns it:
``{id, name, run_number, status, started_at, ended_at, last_event_at, resources,
lifecycle: [{type, at}], checkpoints: [{id, step, saved_at, save_seconds}], resumed_by: [id]}``.

The model (docs/practices.md, "How often should we save checkpoints?"):

- A run's running time is cut into segments: from its start, or from a ``run.resumed``, to
  its next end (``run.completed``, ``run.failed``, ``run.aborted``); a segment without an end
  runs to the run's last recorded event.
- An interruption is a failed or aborted end, a resume of a segment that recorded no end (the
  resume's time stands for the interruption), and the open last segment of a run that
  another run resumed from (its last recorded event stands for it).
- Save cost C = the median ``save_seconds``; MTBF = the running time of every segment divided
  by the number of interruptions, estimated only from `MIN_INTERRUPTIONS` interruptions on.
- Young/Daly: τ = √(2·C·MTBF). Rule of thumb: the work since the last completed save, plus a
  save in progress, is lost at an interruption, so τ = max_rework - C keeps it within
  max_rework. The advised interval is the shorter of the two.
- Work lost at an interruption: recorded = time since the segment's last checkpoint (or its
  start); with an interval τ = (time since the segment's start) mod τ. Accelerator-hours =
  hours x num_nodes (1 when not recorded) x devices_per_node (runs without it: hours only).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import median
from typing import Any

MIN_INTERRUPTIONS = 3
"""Fewer recorded interruptions than this and MTBF (hence Young/Daly) is not estimated."""
DEFAULT_MAX_REWORK_S = 1800.0
ENDS = ("run.completed", "run.failed", "run.aborted")
INTERRUPTING_ENDS = ("run.failed", "run.aborted")
_ORDER = {"run.started": 0, "run.resumed": 1, "run.failed": 2, "run.aborted": 2}


def parse_time(text: str) -> datetime:
    """Stored UTC text (`2026-01-05T09:00:00.000000Z`) as an aware datetime."""
    return datetime.fromisoformat(text)


def _seconds(start: str, end: str) -> float:
    return (parse_time(end) - parse_time(start)).total_seconds()


def devices_of(resources: Mapping[str, Any] | None) -> int | None:
    """Accelerators of a run: num_nodes (1 when absent) x devices_per_node; None unknown."""
    if not resources or resources.get("devices_per_node") is None:
        return None
    return int(resources.get("num_nodes") or 1) * int(resources["devices_per_node"])


@dataclass(frozen=True)
class Interruption:
    """One interruption of a run: when, why, and the segment it cut."""

    run: str
    at: str
    cause: str
    segment_start: str
    last_checkpoint_at: str | None
    end_recorded: bool
    devices: int | None

    @property
    def elapsed_s(self) -> float:
        """Running time of the segment when it was interrupted."""
        return _seconds(self.segment_start, self.at)

    @property
    def lost_s(self) -> float:
        """Work lost as recorded: since the segment's last checkpoint, or its start."""
        return _seconds(self.last_checkpoint_at or self.segment_start, self.at)


@dataclass
class _Segments:
    """The segments of one run: running time and interruptions."""

    run: Mapping[str, Any]
    exposure_s: float = 0.0
    interruptions: list[Interruption] = field(default_factory=list)

    def close(self, start: str, end: str, cause: str | None, recorded: bool = True) -> None:
        self.exposure_s += max(0.0, _seconds(start, end))
        if cause is None:
            return
        saved = [c["saved_at"] for c in self.run.get("checkpoints") or () if c.get("saved_at")]
        before = [s for s in saved if start <= s <= end]
        self.interruptions.append(
            Interruption(
                run=str(self.run["id"]),
                at=end,
                cause=cause,
                segment_start=start,
                last_checkpoint_at=max(before) if before else None,
                end_recorded=recorded,
                devices=devices_of(self.run.get("resources")),
            )
        )


def segments(run: Mapping[str, Any]) -> _Segments:
    """Cut one run into segments (see the module's docstring)."""
    out = _Segments(run)
    events = sorted(run.get("lifecycle") or (), key=lambda e: (e["at"], _ORDER.get(e["type"], 3)))
    start: str | None = run.get("started_at")
    for event in events:
        kind, at = event["type"], event["at"]
        if kind == "run.started":
            start = start if start is not None and start <= at else at
        elif kind == "run.resumed":
            if start is not None:
                out.close(start, at, "resumed without a recorded end", recorded=False)
            start = at
        elif kind in ENDS and start is not None:
            out.close(start, at, kind.removeprefix("run.") if kind != "run.completed" else None)
            start = None
    last = run.get("last_event_at")
    if start is not None and last is not None:
        cause = "resumed by another run" if run.get("resumed_by") else None
        out.close(start, last, cause, recorded=False)
    return out


def current_interval(runs: Iterable[Mapping[str, Any]]) -> dict[str, float | None]:
    """The median time and step between consecutive checkpoints of one segment of a run."""
    times: list[float] = []
    steps: list[float] = []
    for run in runs:
        cuts = sorted(
            e["at"] for e in run.get("lifecycle") or () if e["type"] in ("run.resumed", *ENDS)
        )
        saved = sorted(
            (c for c in run.get("checkpoints") or () if c.get("saved_at")),
            key=lambda c: c["saved_at"],
        )
        for a, b in itertools.pairwise(saved):
            if any(a["saved_at"] < cut <= b["saved_at"] for cut in cuts):
                continue  # an interruption between them: not one interval
            times.append(_seconds(a["saved_at"], b["saved_at"]))
            if a.get("step") is not None and b.get("step") is not None:
                steps.append(float(b["step"] - a["step"]))
    return {
        "seconds": median(times) if times else None,
        "steps": median(steps) if steps else None,
        "intervals_measured": float(len(times)),
    }


def _lost(
    interruptions: Sequence[Interruption], interval_s: float | None, recorded: bool = False
) -> dict[str, Any] | None:
    """Hours and accelerator-hours lost in `interruptions` with checkpoints every interval_s
    from each segment's start (or as recorded)."""
    if not recorded and interval_s is None:
        return None
    hours = 0.0
    accelerator_hours = 0.0
    unknown = 0
    for cut in interruptions:
        lost = cut.lost_s if recorded else math.fmod(cut.elapsed_s, interval_s or 1.0)
        hours += lost / 3600
        if cut.devices is None:
            unknown += 1
        else:
            accelerator_hours += lost / 3600 * cut.devices
    return {
        "interval_s": interval_s,
        "hours": hours,
        "accelerator_hours": accelerator_hours,
        "interruptions_without_resources": unknown,
    }


def _saving_hours(exposure_s: float, interval_s: float | None, cost_s: float | None) -> Any:
    if interval_s is None or cost_s is None or interval_s <= 0:
        return None
    return exposure_s / interval_s * cost_s / 3600


def _rule(max_rework_s: float, cost_s: float | None) -> float | None:
    interval = max_rework_s - (cost_s or 0.0)
    return interval if interval > 0 else None


def advise(
    runs: Sequence[Mapping[str, Any]], *, max_rework_s: float = DEFAULT_MAX_REWORK_S
) -> dict[str, Any]:
    """The checkpoint advice for `runs` (see the module's docstring for every formula)."""
    cut = [segments(run) for run in runs]
    interruptions = sorted((i for s in cut for i in s.interruptions), key=lambda i: (i.at, i.run))
    exposure = sum(s.exposure_s for s in cut)
    costs = [
        float(c["save_seconds"])
        for run in runs
        for c in run.get("checkpoints") or ()
        if c.get("save_seconds") is not None
    ]
    cost = median(costs) if costs else None
    enough = len(interruptions) >= MIN_INTERRUPTIONS
    mtbf = exposure / len(interruptions) if enough and exposure > 0 else None
    young_daly = math.sqrt(2 * cost * mtbf) if cost is not None and mtbf is not None else None
    rule = _rule(max_rework_s, cost)
    advised = min((t for t in (young_daly, rule) if t is not None), default=None)
    current = current_interval(runs)
    checkpoints = sum(len(run.get("checkpoints") or ()) for run in runs)
    return {
        "runs": [str(r["id"]) for r in runs],
        "save_cost_s": cost,
        "saves_measured": len(costs),
        "running_hours": exposure / 3600,
        "interruptions": [_interruption_view(i) for i in interruptions],
        "min_interruptions": MIN_INTERRUPTIONS,
        "mtbf_s": mtbf,
        "max_rework_s": max_rework_s,
        "current": current,
        "young_daly_s": young_daly,
        "rule_of_thumb_s": rule,
        "advised_s": advised,
        "lost": {
            "current": _lost(interruptions, current["seconds"], recorded=True),
            "young_daly": _lost(interruptions, young_daly),
            "rule_of_thumb": _lost(interruptions, rule),
            "advised": _lost(interruptions, advised),
        },
        "saving_hours": {
            "current": checkpoints * cost / 3600 if cost is not None else None,
            "advised": _saving_hours(exposure, advised, cost),
        },
        "notes": _notes(len(interruptions), cost, rule, max_rework_s),
    }


# An interruption as the answer shows it: these attributes, under their own names, in this order.
_INTERRUPTION_KEYS = (
    "run",
    "at",
    "cause",
    "segment_start",
    "last_checkpoint_at",
    "end_recorded",
    "lost_s",
    "devices",
)


def _interruption_view(cut: Interruption) -> dict[str, Any]:
    return {key: getattr(cut, key) for key in _INTERRUPTION_KEYS}


def _notes(count: int, cost: float | None, rule: float | None, max_rework_s: float) -> list[str]:
    notes: list[str] = []
    if count < MIN_INTERRUPTIONS:
        notes.append(
            f"too few interruptions to estimate MTBF: {count} recorded, at least "
            f"{MIN_INTERRUPTIONS} needed; no Young/Daly interval"
        )
    if cost is None:
        notes.append(
            "no checkpoint recorded save_seconds: the save cost is unknown "
            "(save through run.saving_checkpoint); no Young/Daly interval"
        )
    if rule is None:
        notes.append(f"one save takes longer than the acceptable rework ({max_rework_s:g} s)")
    return notes


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def render_advice(report: Mapping[str, Any]) -> str:
    """The advice as text for people."""
    current = report["current"]
    steps = f" (~{current['steps']:g} steps)" if current["steps"] is not None else ""
    lines = [
        f"runs: {len(report['runs'])}, running time {report['running_hours']:.2f} h, "
        f"interruptions: {len(report['interruptions'])}",
        f"save cost C (median of {report['saves_measured']}): {_duration(report['save_cost_s'])}",
        f"MTBF: {_duration(report['mtbf_s'])}",
        f"current interval: {_duration(current['seconds'])}{steps}",
        f"Young/Daly √(2·C·MTBF): {_duration(report['young_daly_s'])}",
        f"rule of thumb (rework ≤ {_duration(report['max_rework_s'])}): "
        f"{_duration(report['rule_of_thumb_s'])}",
        f"advised: {_duration(report['advised_s'])}",
        "work lost in the recorded interruptions (accelerator-hours):",
    ]
    for name, lost in report["lost"].items():
        value = "—" if lost is None else f"{lost['accelerator_hours']:.2f} ({lost['hours']:.2f} h)"
        lines.append(f"  {name.replace('_', ' ')}: {value}")
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)
