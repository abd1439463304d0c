"""The layout of a model dossier: its document (`recipes.dossier`) as a list of blocks, the one
reading every format renders (Markdown, HTML, and the PDF printed from the HTML).

A block is a heading (`Heading`), a list of fields (`Fields`), a table (`Table`) or a line of
text (`Note`). Values stay as recorded; `text` turns each into the words a page shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NONE = "-"


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Fields:
    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Note:
    text: str


Block = Heading | Fields | Table | Note


def text(value: Any) -> str:
    """A recorded value as a page shows it: `-` for none, yes/no, maps as `k=v, ...`."""
    if value is None or value == [] or value == {}:
        return NONE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_flat(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(text(v) for v in value)
    return str(value)


def _flat(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else text(value)


def verdict(passed: Any) -> str:
    return {True: "PASS", False: "FAIL"}.get(passed, NONE)


def _fields(*rows: tuple[str, Any]) -> Fields:
    return Fields(tuple((name, text(value)) for name, value in rows))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> Table:
    return Table(tuple(headers), tuple(tuple(text(v) for v in row) for row in rows))


def _who(entry: Mapping[str, Any] | None) -> str:
    return NONE if not entry else f"{entry['person']} ({entry['basis']})"


def _identity(doc: Mapping[str, Any]) -> Iterator[Block]:
    who = doc["identity"]
    yield Heading("Identity")
    yield _fields(
        ("model", who["model"]), ("version", who["version"]), ("id", who["id"]),
        ("project", who["project"]), ("status", who["status"]),
        ("registered at", who["registered_at"]), ("registered by", _who(who["registered_by"])),
        ("description", who["description"]), ("uri", who["uri"]), ("checksum", who["checksum"]),
    )  # fmt: skip
    yield Heading("Status history", 3)
    rows = [(h["status"], h["at"], _who(h), h["reason"]) for h in who["status_history"]]
    yield _table(("status", "at", "who", "why"), rows) if rows else Note("No status change.")
    yield Heading("Approvals", 3)
    approvals = [(a["at"], _who(a), a["reason"]) for a in who["approvals"]]
    yield _table(("at", "who", "why"), approvals) if approvals else Note("Not approved.")


def _stage(stage: Mapping[str, Any]) -> Iterator[Block]:
    exp = stage["experiment"] or {}
    code = stage["code"]
    yield Heading(f"Level {stage['level']} ({stage['reached_as']}): {stage['id']}", 3)
    yield _fields(
        ("run", f"{stage['name'] or NONE}, #{text(stage['run_number'])}, {stage['status']}"),
        ("experiment", f"{text(exp.get('id'))} (number {text(exp.get('number'))})"),
        ("goal", exp.get("goal")), ("conclusion", stage["conclusion"]),
        ("started, ended", f"{text(stage['started_at'])} .. {text(stage['ended_at'])}"),
        ("parameters", stage["params"]),
        ("code", f"{text(code.get('repo'))} @ {text(code.get('commit'))}"
                 f"{' (dirty)' if code.get('dirty') else ''}"),
        ("resources", stage["resources"]), ("accelerator-hours", stage["accelerator_hours"]),
        ("environment", stage["environment"]), ("base model", stage["base"]),
        ("inputs", [f"{i['role']}: {i['id']}" for i in stage["inputs"]]),
    )  # fmt: skip
    events = [("failed", f["at"], _who(f)) for f in stage["failures"]]
    events += [("resumed", r["at"], _who(r)) for r in stage["resumes"]]
    events += [("resumed from", c["id"], c["run"]) for c in stage["resumed_from"]]
    if events:
        yield _table(("failure / resume", "at / checkpoint", "who / run"), events)
    if stage["error"]:
        yield Note(f"Error: {text(stage['error']['type'])}: {text(stage['error']['message'])}")
    if stage["last_interruption"]:
        yield Note(f"Last interruption: {text(stage['last_interruption'])}")


def _training(doc: Mapping[str, Any]) -> Iterator[Block]:
    train = doc["training"]
    yield Heading("Training")
    exported = train["exported_from"] or {}
    yield _fields(("exported from checkpoint", exported.get("id")))
    for stage in train["stages"]:
        yield from _stage(stage)
    if not train["stages"]:
        yield Note("No producing run recorded.")


def _environments(doc: Mapping[str, Any]) -> Iterator[Block]:
    yield Heading("Environment")
    for env in doc["environments"]:
        yield Heading(env["id"], 3)
        yield _fields(
            ("image", env["image_ref"]), ("base image", env["base_image_ref"]),
            ("python", env["python_version"]), ("driver", env["driver_version"]),
            ("frameworks", env["frameworks"]), ("compute libraries (CUDA, cuDNN)",
                                                env["compute_libs"]),
            ("parallel libraries (NCCL)", env["parallel_libs"]), ("system", env["system"]),
            ("packages", env["packages"]), ("runs", env["runs"]),
        )  # fmt: skip
    if not doc["environments"]:
        yield Note("No environment recorded.")


def _rule(rule: Mapping[str, Any]) -> str:
    params = rule.get("params")
    return f"{rule.get('kind')} {rule.get('name')}{f' ({text(params)})' if params else ''}"


def _part(part: Mapping[str, Any]) -> str:
    weight = part.get("weight")
    shown = None if weight is None else f"weight {weight}"
    how = ", ".join(w for w in (part.get("transform"), shown) if w)
    return f"{part['dataset_version']}{f' ({how})' if how else ''}"


def _dataset(entry: Mapping[str, Any]) -> Iterator[Block]:
    source = entry["source"] or {}
    gates = entry["quality_gates"] or {}
    yield Heading(entry["id"], 3)
    yield _fields(
        ("read by", [f"{r['run']} ({r['role']})" for r in entry["read_by"]]),
        ("source uri", source.get("uri")), ("obtained by", source.get("obtained_by")),
        ("licence", source.get("licence")), ("compliance note", source.get("compliance_note")),
        ("storage uri", entry["storage_uri"]), ("records", entry["record_count"]),
        ("derived from", entry["derived_from"]),
        ("cleaning rules", [_rule(r) for r in entry["cleaning_rules"]]),
        ("split", entry["split"]),
        ("mix", [_part(m) for m in entry["mix"]]),
        ("mix ratio", gates.get("mix_ratio")), ("dedup rate", gates.get("dedup_rate")),
        ("quality gates", verdict(gates.get("passed"))),
    )  # fmt: skip
    checks = [
        (c.get("name"), verdict(c.get("passed")), c.get("value")) for c in gates.get("checks") or ()
    ]
    if checks:
        yield _table(("gate", "verdict", "value"), checks)


def _data(doc: Mapping[str, Any]) -> Iterator[Block]:
    yield Heading("Data")
    for entry in doc["data"]:
        yield from _dataset(entry)
    if not doc["data"]:
        yield Note("No input dataset recorded.")


def _evaluations(doc: Mapping[str, Any]) -> Iterator[Block]:
    found = doc["evaluations"]
    yield Heading("Evaluations")
    validation = found["validation"]
    yield _fields(("fit for", found["fit_for"]), ("validation", verdict(validation["passed"])))
    checks = [(v.get("name"), verdict(v.get("passed")), v.get("value"), v.get("details"))
              for v in validation["results"]]  # fmt: skip
    if checks:
        yield _table(("validation", "verdict", "value", "details"), checks)
    for entry in found["sets"]:
        suite = " ".join(s for s in (entry["suite"], entry["suite_version"]) if s) or NONE
        yield Heading(f"Evaluation set: {text(entry['datasets'])} [{suite}]", 3)
        rows = [
            (e["at"], verdict(e["passed"]), e["metrics"], e["run"]) for e in entry["evaluations"]
        ]
        yield _table(("evaluated at", "passed", "metrics", "run"), rows)
    if not found["sets"]:
        yield Note("No evaluation recorded.")


def _deployments(doc: Mapping[str, Any]) -> Iterator[Block]:
    yield Heading("Deployments")
    for entry in doc["deployments"]:
        latest = entry["latest_feedback"] or {}
        yield Heading(f"{entry['name'] or entry['id']} ({entry['id']})", 3)
        yield _fields(
            ("endpoint", entry["endpoint"]), ("environment", entry["environment"]),
            ("status", entry["status"]), ("serves this version", entry["serving"]),
            ("traffic share", entry["traffic_share"]),
            ("latest feedback", f"{text(latest.get('at'))} by {_who(latest or None)}"),
            ("feedback metrics", latest.get("metrics")),
        )  # fmt: skip
        rows = [(i.get("severity"), i.get("summary"), i.get("occurred_at"), i.get("reference"))
                for i in entry["incidents"]]  # fmt: skip
        if rows:
            yield _table(("severity", "incident", "occurred at", "reference"), rows)
    if not doc["deployments"]:
        yield Note("Not deployed.")


def _hours(doc: Mapping[str, Any]) -> Iterator[Block]:
    hours = doc["accelerator_hours"]
    yield Heading("Accelerator-hours")
    yield _fields(("total", hours["total"]),
                  ("runs without resources", hours["runs_without_resources"]))  # fmt: skip
    rows = [(p["person"], round(p["accelerator_hours"], 3)) for p in hours["by_person"]]
    if rows:
        yield _table(("person", "accelerator-hours"), rows)


def _gaps(doc: Mapping[str, Any]) -> Iterator[Block]:
    yield Heading("Gaps")
    rows = [(g["at"], g["issue"]) for g in doc["gaps"]]
    yield _table(("where", "missing"), rows) if rows else Note("Nothing missing was found.")


def layout(doc: Mapping[str, Any]) -> list[Block]:
    """The blocks of a dossier, section by section in `dossier.SECTIONS` order."""
    parts = (_identity, _training, _environments, _data, _evaluations, _deployments, _hours,
             _gaps)  # fmt: skip
    return [Heading(doc["title"], 1), *(b for part in parts for b in part(doc))]
