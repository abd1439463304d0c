"""The evaluations and deployments sections of a model dossier (pure: plain records in).

Inputs: the model version's record of `read.dossier_reads.DossierReads.model_version` and its
feedback (`read.feedback_reads.FeedbackReads`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read.feedback_reads import FeedbackRecord
from provgraph.query.recipes.dossier_sections import Gaps, who
from provgraph.schemas.storage import decode_json


def evaluations(found: Mapping[str, Any], gaps: Gaps) -> dict[str, Any]:
    """Evaluations grouped per evaluation set (its dataset versions, suite and suite version),
    the version's fit-for scope and its validation before registration."""
    version = found["version"]
    sets: dict[tuple[Any, ...], dict[str, Any]] = {}
    for evaluation in found["evaluations"]:
        props = evaluation["props"]
        key = (tuple(evaluation["datasets"]), props.get("suite"), props.get("suite_version"))
        entry = sets.setdefault(key, {"datasets": list(key[0]), "suite": key[1],
                                      "suite_version": key[2], "evaluations": []})  # fmt: skip
        entry["evaluations"].append({
            "id": props.get("id"),
            "at": props.get("evaluated_at"),
            "passed": props.get("passed"),
            "metrics": decode_json(props, "metrics") or {},
            "run": (evaluation["runs"] or [None])[0],
        })  # fmt: skip
    checks = decode_json(version, "validation") or []
    fit_for = list(version.get("fit_for") or ())
    me = version["id"]
    if not sets:
        gaps.add(me, "no evaluation recorded")
    if not checks:
        gaps.add(me, "no validation recorded before registration")
    if not fit_for:
        gaps.add(me, "no fit-for scope recorded (what the version is fit for)")
    return {
        "sets": list(sets.values()),
        "fit_for": fit_for,
        "validation": {"passed": version.get("validation_passed"), "results": checks},
    }


def deployments(found: Mapping[str, Any], feedback: Sequence[FeedbackRecord]) -> list[Any]:
    """The deployments serving the version, and those whose feedback named it, each with its
    latest feedback and the incidents it still holds."""
    out: dict[str, dict[str, Any]] = {}
    for served in found["deployments"]:
        props = served["props"]
        out[props["id"]] = _deployment(props, served.get("traffic_share"), serving=True)
    for record in feedback:  # newest first
        node = record.deployment
        if node is None:
            continue
        entry = out.setdefault(node.id, _deployment({"id": node.id, **node.props}, None, False))
        if entry["latest_feedback"] is None:
            entry["latest_feedback"] = {"at": record.at, "event_id": record.event_id,
                                        **who(vars(record)),
                                        "metrics": dict(record.metrics or {})}  # fmt: skip
        if record.incidents is not None and entry["incidents"] is None:
            entry["incidents"] = [dict(i) for i in record.incidents]
    for entry in out.values():
        entry["incidents"] = entry["incidents"] or []
    return sorted(out.values(), key=lambda d: str(d["id"]))


def _deployment(props: Mapping[str, Any], share: Any, serving: bool) -> dict[str, Any]:
    keys = ("id", "name", "endpoint", "environment", "status", "created_at", "retired_at")
    return {**{k: props.get(k) for k in keys}, "traffic_share": share, "serving": serving,
            "latest_feedback": None, "incidents": None}  # fmt: skip
