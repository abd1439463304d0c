"""The identity, training, environment and data sections of a model dossier, each built from
plain records (pure: no I/O; evaluations and deployments: `recipes/dossier_release.py`).

Inputs: the reproduce recipe of the model version (`recipes.service.Recipes.reproduce`) and
the records of `read.dossier_reads.DossierReads`. Each builder answers JSON-serialisable data
and says what is missing through `Gaps`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from provgraph.query.recipes.data_gates import failed_checks
from provgraph.query.recipes.digest import accelerator_use, conclusion_missing, person

APPROVED = "approved"
_STATUS_AT = "status_at."
_EVENT_TYPES = {"model.version.registered": "registered"}


class Gaps:
    """What the record is missing, each `{at, issue}` once, in the order found."""

    def __init__(self, found: Sequence[Mapping[str, Any]] = ()) -> None:
        self.items: list[dict[str, Any]] = []
        for gap in found:
            self.add(gap.get("at"), str(gap.get("issue")))

    def add(self, at: str | None, issue: str) -> None:
        entry = {"at": at, "issue": issue}
        if entry not in self.items:
            self.items.append(entry)


def who(event: Mapping[str, Any] | None) -> dict[str, Any]:
    who, basis = person(event)
    return {"person": who, "basis": basis}


# ---- identity --------------------------------------------------------------------------------


def _status_of(event: Mapping[str, Any], version: Mapping[str, Any]) -> str | None:
    """The status whose (latest) time is this change's: status only moves forward."""
    times = {k[len(_STATUS_AT) :]: v for k, v in version.items() if k.startswith(_STATUS_AT)}
    return next((s for s, at in sorted(times.items()) if at == event["at"]), None)


def identity(found: Mapping[str, Any], gaps: Gaps) -> dict[str, Any]:
    """Model, version, registration, status history (who, when, why) and approvals."""
    version, events = found["version"], found["events"]
    registered = next((e for e in events if e["type"] in _EVENT_TYPES), None)
    history = [
        {"status": _status_of(e, version), "at": e["at"], **who(e), "reason": e.get("reason")}
        for e in events
        if e["type"] not in _EVENT_TYPES
    ]
    model = found.get("model") or {}
    return {
        "id": version["id"],
        "project": version.get("project"),
        "model": model.get("id"),
        "name": version.get("name"),
        "version": version.get("version"),
        "description": version.get("description"),
        "uri": version.get("uri"),
        "checksum": version.get("checksum"),
        "status": version.get("status"),
        "registered_at": version.get("registered_at"),
        "registered_by": who(registered) if registered else None,
        "status_history": history,
        "approvals": [h for h in history if h["status"] == APPROVED],
    }


# ---- training --------------------------------------------------------------------------------


def chain_runs(
    run: Mapping[str, Any] | None, level: int = 0, how: str = "produced"
) -> Iterator[tuple[int, str, Any]]:
    """Every run of a recipe's run tree, once, as (level, how it is reached, run view): the
    producing run, the runs whose checkpoints it resumed from, then its base model's run,
    level by level."""
    if run is None:
        return
    yield level, how, run
    for resume in run.get("resumed_from") or ():
        yield from chain_runs(resume.get("run_recipe"), level, "resumed from")
    base = run.get("base") or {}
    yield from chain_runs(base.get("run"), level + 1, "base model")


def _events(record: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    return [{"at": e["at"], **who(e)} for e in record.get("lifecycle") or () if e["type"] == kind]


def _hours(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Accelerator-hours of `records` over their whole life (`digest`'s computation)."""
    starts = [r["started_at"] for r in records if r.get("started_at")]
    ends = [r.get("ended_at") or r.get("last_event_at") for r in records]
    known = [e for e in ends if e]
    if not starts or not known:
        return {"total": None, "by_person": [], "runs_without_resources": len(records)}
    found = accelerator_use(records, min(starts), max(known))
    total = sum(p["accelerator_hours"] for p in found["by_project"])
    return {
        "total": round(total, 3) if found["runs_without_resources"] < len(records) else None,
        "by_person": found["by_person"],
        "runs_without_resources": found["runs_without_resources"],
    }


def _stage(level: int, how: str, view: Mapping[str, Any], record: Mapping[str, Any] | None,
           gaps: Gaps) -> dict[str, Any]:  # fmt: skip
    record = record or {}
    run_id = view["id"]
    experiment = record.get("experiment")
    if record and experiment is None:
        gaps.add(run_id, "no experiment recorded (no goal, no number)")
    if record.get("status") in ("completed", "failed") and conclusion_missing(record):
        gaps.add(run_id, "no conclusion recorded")
    base = view.get("base") or {}
    error = {"type": record.get("error_type"), "message": record.get("error_message")}
    return {
        "level": level,
        "reached_as": how,
        "id": run_id,
        "name": view.get("name"),
        "status": view.get("status"),
        "experiment": experiment,
        "run_number": record.get("run_number"),
        "started_at": record.get("started_at"),
        "ended_at": record.get("ended_at"),
        "conclusion": None if conclusion_missing(record) else record.get("conclusion"),
        "params": view.get("params") or {},
        "code": view.get("code") or {},
        "resources": view.get("resources"),
        "accelerator_hours": _hours([record])["total"] if record else None,
        "environment": (view.get("environment") or {}).get("id"),
        "inputs": [{"role": i["role"], "id": i["id"]} for i in view.get("inputs") or ()],
        "base": base.get("id"),
        "failures": _events(record, "run.failed"),
        "error": error if error["type"] or error["message"] else None,
        "abort_reason": record.get("abort_reason"),
        "resumes": _events(record, "run.resumed"),
        "last_interruption": _interruption(record),
        "resumed_from": [_checkpoint(c) for c in view.get("resumed_from") or ()],
    }


def _interruption(record: Mapping[str, Any]) -> dict[str, Any] | None:
    cause = record.get("interruption_cause")
    if cause is None:
        return None
    return {"cause": cause, "steps_lost": record.get("steps_lost"),
            "resumed_at_step": record.get("resumed_at_step")}  # fmt: skip


def _checkpoint(view: Mapping[str, Any]) -> dict[str, Any]:
    return {k: view.get(k) for k in ("id", "step", "run")}


def training(
    recipe: Mapping[str, Any], records: Mapping[str, Mapping[str, Any] | None], gaps: Gaps
) -> dict[str, Any]:
    """The producing run(s) and the base-model chain stage by stage, with the hours spent."""
    stages = [
        _stage(level, how, view, records.get(view["id"]), gaps)
        for level, how, view in chain_runs(recipe.get("run"))
    ]
    known = [r for r in (records.get(s["id"]) for s in stages) if r is not None]
    hours = _hours(known)
    for stage in stages:
        if stage["resources"] is None:
            gaps.add(stage["id"], "no resources recorded: its accelerator-hours are unknown")
    return {
        "exported_from": recipe.get("exported_from"),
        "stages": stages,
        "accelerator_hours": hours,
    }


# ---- environment -----------------------------------------------------------------------------


def environments(recipe: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each environment of the chain once, with the runs that ran in it."""
    out: dict[str, dict[str, Any]] = {}
    for _, _, view in chain_runs(recipe.get("run")):
        env = view.get("environment")
        if env is None:
            continue
        entry = out.setdefault(env["id"], {**env, "runs": []})
        entry["runs"].append(view["id"])
    return list(out.values())


# ---- data ------------------------------------------------------------------------------------


def _trees(recipe: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(run, role, dataset view) of every input tree of the chain, at every depth."""

    def walk(run: str, role: str, node: Mapping[str, Any]) -> Iterator[Any]:
        yield run, role, node
        for upstream in node.get("derived_from") or ():
            yield from walk(run, role, upstream)

    for _, _, view in chain_runs(recipe.get("run")):
        for tree in view.get("inputs") or ():
            yield from walk(view["id"], tree["role"], tree)


def _gates(stored: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not stored:
        return None
    checks = [dict(c) for c in stored.get("checks") or ()]
    return {
        "dedup_rate": stored.get("dedup_rate"),
        "mix_ratio": stored.get("mix_ratio") or {},
        "checks": checks,
        "passed": not failed_checks(stored) if checks else None,
    }


def data(
    recipe: Mapping[str, Any], extra: Mapping[str, Mapping[str, Any] | None], gaps: Gaps
) -> list[dict[str, Any]]:
    """Every upstream dataset version once: where its data came from and under which terms,
    how it was cleaned, split and mixed, its quality gates with their verdicts, and which run
    read it in which role (a version read only upstream of another: `derived`)."""
    out: dict[str, dict[str, Any]] = {}
    for run, role, node in _trees(recipe):
        entry = out.get(node["id"])
        if entry is None:
            more = extra.get(node["id"]) or {}
            entry = out[node["id"]] = {
                **{k: v for k, v in node.items() if k != "derived_from"},
                "derived_from": [d["id"] for d in node.get("derived_from") or ()],
                "mix": list(more.get("mix") or ()),
                "quality_gates": _gates(more.get("quality_gates")),
                "read_by": [],
            }
            _data_gaps(entry, gaps)
        use = {"run": run, "role": role}
        if use not in entry["read_by"]:
            entry["read_by"].append(use)
    return sorted(out.values(), key=lambda d: str(d["id"]))


def _data_gaps(entry: Mapping[str, Any], gaps: Gaps) -> None:
    source = entry.get("source")
    if source is None and not entry["derived_from"] and not entry.get("placeholder"):
        gaps.add(entry["id"], "no source recorded (where its data came from, under which terms)")
    elif source is not None and not source.get("licence"):
        gaps.add(entry["id"], "no licence recorded for its source")
