"""The weekly digest of a project (pure: plain data in, a dict out; text and Markdown out).

Inputs are what `read.digest_reads.DigestReads.digest` returns:

- runs: ``{id, project, name, run_number, status, started_at, ended_at, last_event_at,
  conclusion, error_type, error_message, abort_reason, resources, experiment,
  lifecycle: [{type, at, actor, principal}], trained_on: [{role, id, gates}]}``: every run
  started, ended or resumed in the window, and every run still running;
- items: ``{event_type, at, actor, principal, node: {id, name, version, status, ...},
  status_at: {status: time}}``: the dataset versions, model versions, status changes,
  deployments and feedback recorded in the window.

A person is the authenticated principal ingest stamped on the event when there is one, else
the actor the event claims; a run belongs to whoever started it (its ``run.started``). The
reads hand principals over named as issued (``user:ann``, `provgraph.schemas.issued_name`), the
form actors claim too: one person, one name, whichever basis names them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.recipes.checkpoint_advice import devices_of, parse_time
from provgraph.query.recipes.data_gates import trained_on

REPEATED_FAILURES = 2
"""An experiment with at least this many failures in the window is listed."""
DEFAULT_STALLED_AFTER_S = 7200.0
# What the SDK wrote when a run ended without a conclusion (before it stopped doing so): a
# placeholder is no conclusion.
PLACEHOLDER_CONCLUSIONS = ("Run completed; no conclusion was recorded (set run.conclusion).",)
ITEM_KINDS = {
    "dataset.version.created": "dataset_versions",
    "model.version.registered": "model_versions",
    "model.version.status.changed": "status_changes",
    "deployment.created": "deployments",
    "deployment.updated": "deployments",
    "deployment.retired": "deployments",
    "deployment.feedback.recorded": "feedback",
}
UNKNOWN_PERSON = "unknown"


def person(event: Mapping[str, Any] | None) -> tuple[str, str]:
    """(who, basis): the stamped principal when present, else the claimed actor."""
    if event is None:
        return UNKNOWN_PERSON, "none"
    if event.get("principal"):
        return str(event["principal"]), "principal"
    if event.get("actor"):
        return str(event["actor"]), "actor"
    return UNKNOWN_PERSON, "none"


def conclusion_missing(run: Mapping[str, Any]) -> bool:
    """No conclusion written: none, blank, the SDK's old placeholder or its generated text for
    a failure (``Run failed: <type>: <message>``)."""
    text = (run.get("conclusion") or "").strip()
    if not text or text in PLACEHOLDER_CONCLUSIONS:
        return True
    generated = f"Run failed: {run.get('error_type')}: {run.get('error_message') or ''}"
    return run.get("status") == "failed" and text == generated[:4096].strip()


def _in(at: str | None, since: str, until: str) -> bool:
    return at is not None and since <= at < until


def _starter(run: Mapping[str, Any]) -> Mapping[str, Any] | None:
    lifecycle = sorted(run.get("lifecycle") or (), key=lambda e: e["at"])
    started = [e for e in lifecycle if e["type"] == "run.started"]
    first: Mapping[str, Any] | None = (started or lifecycle or [None])[0]
    return first


def run_brief(run: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a run every section shows."""
    who, basis = person(_starter(run))
    experiment = run.get("experiment") or {}
    brief = {
        "id": run["id"],
        "name": run.get("name"),
        "run_number": run.get("run_number"),
        "experiment": experiment.get("id"),
        "status": run.get("status"),
        "person": who,
        "person_basis": basis,
        "started_at": run.get("started_at"),
        "ended_at": run.get("ended_at"),
    }
    if run.get("status") == "failed" or run.get("error_type"):
        brief["error"] = {"type": run.get("error_type"), "message": run.get("error_message")}
    return brief


def _events(run: Mapping[str, Any], kind: str, since: str, until: str) -> list[Mapping[str, Any]]:
    return [
        e for e in run.get("lifecycle") or () if e["type"] == kind and _in(e["at"], since, until)
    ]


def _by_person(runs: Sequence[Mapping[str, Any]], since: str, until: str) -> list[dict[str, Any]]:
    people: dict[str, dict[str, Any]] = {}
    for run in sorted(runs, key=lambda r: (r.get("started_at") or "", r["id"])):
        brief = run_brief(run)
        entry = people.setdefault(
            brief["person"],
            {"person": brief["person"], "basis": brief["person_basis"], "started": [],
             "finished": [], "failed": [], "aborted": [], "running": []},
        )  # fmt: skip
        if _events(run, "run.started", since, until) or _in(run.get("started_at"), since, until):
            entry["started"].append(brief)
        for kind, key in (("completed", "finished"), ("failed", "failed"), ("aborted", "aborted")):
            if _events(run, f"run.{kind}", since, until):
                entry[key].append(brief)
        if run.get("status") == "running":
            entry["running"].append(brief)
    return [people[k] for k in sorted(people)]


def _stalled(
    runs: Sequence[Mapping[str, Any]], until: str, stalled_after_s: float
) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        last = run.get("last_event_at")
        if run.get("status") != "running" or last is None:
            continue
        idle = (parse_time(until) - parse_time(last)).total_seconds()
        if idle > stalled_after_s:
            out.append({**run_brief(run), "last_event_at": last, "idle_s": idle})
    return sorted(out, key=lambda r: (-r["idle_s"], r["id"]))


def _repeated(runs: Sequence[Mapping[str, Any]], since: str, until: str) -> list[dict[str, Any]]:
    groups: dict[str, list[tuple[Mapping[str, Any], int]]] = {}
    for run in runs:
        failures = len(_events(run, "run.failed", since, until))
        experiment = (run.get("experiment") or {}).get("id")
        if failures and experiment:
            groups.setdefault(experiment, []).append((run, failures))
    out = []
    for experiment, found in sorted(groups.items()):
        count = sum(n for _, n in found)
        if count >= REPEATED_FAILURES:
            errors = sorted({str(r.get("error_type")) for r, _ in found if r.get("error_type")})
            runs_seen = sorted((run_brief(r) for r, _ in found), key=lambda b: b["id"])
            out.append({"experiment": experiment, "failures": count, "errors": errors,
                        "runs": runs_seen})  # fmt: skip
    return out


def _missing(runs: Sequence[Mapping[str, Any]], since: str, until: str) -> list[dict[str, Any]]:
    return [
        run_brief(r)
        for r in sorted(runs, key=lambda r: r["id"])
        if r.get("status") in ("completed", "failed")
        and _in(r.get("ended_at"), since, until)
        and conclusion_missing(r)
    ]


def _data_gates(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The runs that train on a dataset version whose quality gates failed or were never
    recorded, with those versions (`data_gates.trained_on`)."""
    out = []
    for run in sorted(runs, key=lambda r: r["id"]):
        flags = trained_on(run.get("trained_on") or ())
        if flags:
            out.append({**run_brief(run), "data_gates": flags})
    return out


def _hours_in_window(run: Mapping[str, Any], since: str, until: str) -> float:
    start = run.get("started_at")
    end = run.get("ended_at") if run.get("status") != "running" else None
    end = end or run.get("last_event_at")
    if start is None or end is None:
        return 0.0
    lo, hi = max(start, since), min(end, until)
    return max(0.0, (parse_time(hi) - parse_time(lo)).total_seconds() / 3600) if lo < hi else 0.0


def accelerator_use(runs: Sequence[Mapping[str, Any]], since: str, until: str) -> dict[str, Any]:
    """Accelerator-hours of `runs` between `since` and `until`, per person and per project
    (hours running x `num_nodes` x `devices_per_node`), and how many runs recorded no
    resources (unknown, never counted as zero)."""
    by_person: dict[str, float] = {}
    by_project: dict[str, float] = {}
    without = 0
    for run in runs:
        devices = devices_of(run.get("resources"))
        if devices is None:
            without += 1
            continue
        hours = _hours_in_window(run, since, until) * devices
        who = run_brief(run)["person"]
        by_person[who] = by_person.get(who, 0.0) + hours
        by_project[run["project"]] = by_project.get(run["project"], 0.0) + hours
    return {
        "by_person": [{"person": k, "accelerator_hours": v} for k, v in sorted(by_person.items())],
        "by_project": [
            {"project": k, "accelerator_hours": v} for k, v in sorted(by_project.items())
        ],
        "runs_without_resources": without,
    }


def _item(item: Mapping[str, Any]) -> dict[str, Any]:
    who, basis = person(item)
    node = item.get("node") or {}
    out = {
        "event_type": item["event_type"],
        "at": item["at"],
        "id": node.get("id"),
        "name": node.get("name"),
        "version": node.get("version"),
        "person": who,
        "person_basis": basis,
    }
    if item["event_type"] == "model.version.status.changed":
        # The status whose (latest) time is this event's: status only moves forward.
        times = item.get("status_at") or {}
        out["to_status"] = next((s for s, at in sorted(times.items()) if at == item["at"]), None)
    if item["event_type"] == "deployment.feedback.recorded":
        out["model_version"] = node.get("feedback_model_version")
    return out


def digest(
    runs: Sequence[Mapping[str, Any]],
    items: Sequence[Mapping[str, Any]],
    *,
    projects: Sequence[str],
    since: str,
    until: str,
    stalled_after_s: float = DEFAULT_STALLED_AFTER_S,
    truncated: bool = False,
) -> dict[str, Any]:
    """The digest of `projects` for the window [since, until) (stored UTC text)."""
    sections: dict[str, list[dict[str, Any]]] = {k: [] for k in dict.fromkeys(ITEM_KINDS.values())}
    for item in sorted(items, key=lambda i: (i["at"], str((i.get("node") or {}).get("id")))):
        sections[ITEM_KINDS[item["event_type"]]].append(_item(item))
    return {
        "projects": sorted(projects),
        "since": since,
        "until": until,
        "stalled_after_s": stalled_after_s,
        "person_basis": "the principal ingest authenticated when recorded, else the actor",
        "people": _by_person(runs, since, until),
        "stalled": _stalled(runs, until, stalled_after_s),
        "repeated_failures": _repeated(runs, since, until),
        "conclusion_missing": _missing(runs, since, until),
        "trained_on_ungated_data": _data_gates(runs),
        **sections,
        "accelerator_hours": accelerator_use(runs, since, until),
        "truncated": truncated,
    }
