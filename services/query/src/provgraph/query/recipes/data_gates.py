"""Data gates before training (pure): whether a dataset version a run trains on passed its
quality gates.

A dataset version records its gates in `dataset.version.created` (`quality_gates`: dedup
rate, mix ratio, checks `{name, passed, value}`), stored as `quality_gates_json` on its node.
A run's input of role `train` whose version recorded no gates, or a check that did not pass,
is flagged by `compare`, the digest and the reproduce recipe's gaps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from provgraph.schemas.events.experiment import InputRole
from provgraph.schemas.storage import parse_json

GATES = "quality_gates"
"""The DatasetVersion node's quality gates (`storage.decode_json` name)."""
TRAIN = InputRole.TRAIN.value
NO_GATES = "no quality gates recorded"
FAILED = "quality gates failed"


def failed_checks(gates: Any) -> list[str]:
    """The names of the checks of decoded `gates` that did not pass, in recorded order."""
    checks = gates.get("checks") if isinstance(gates, Mapping) else None
    return [
        str(c.get("name"))
        for c in checks or ()
        if isinstance(c, Mapping) and c.get("passed") is not True
    ]


def gates_issue(gates: Any) -> str | None:
    """What is wrong with decoded `gates` for training: none recorded, or failed checks by
    name; None when they were recorded and every check passed."""
    if not isinstance(gates, Mapping):
        return NO_GATES
    failed = failed_checks(gates)
    return f"{FAILED}: {', '.join(failed)}" if failed else None


def stored_gates_issue(raw: Any) -> str | None:
    """`gates_issue` of the stored JSON text (None or not JSON: none recorded)."""
    return gates_issue(parse_json(raw) if isinstance(raw, str) else None)


def trained_on(inputs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The flags of a run's inputs `{role, id, gates}` (gates as stored JSON text): one
    `{dataset_version, issue}` per train input whose gates are missing or failed, by id."""
    flags = []
    for used in inputs:
        if used.get("role") != TRAIN:
            continue
        issue = stored_gates_issue(used.get("gates"))
        if issue is not None:
            flags.append({"dataset_version": str(used["id"]), "issue": issue})
    return sorted(flags, key=lambda f: f["dataset_version"])
