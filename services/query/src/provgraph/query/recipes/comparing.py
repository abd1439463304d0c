"""Runs side by side, each checked against the run it should be compared with (pure).

A run's record (from `read/compare_reads.py`) becomes a `RunRow`: params, inputs (and the
flags of those it trains on whose quality gates failed or were never recorded), environment,
code, base, resources (`recipes/resources.py`), resumes and its metrics, each under one
*definition* (where the value comes from, its split and its name). Each run is checked against
its comparison run (the previous run of its experiment by number, or a baseline): every setting
that differs is listed, and a check with more than one is *flagged*, since an effect could be
credited to the wrong change. `recipes/compare_answer.py` assembles the answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from provgraph.query.recipes.data_gates import trained_on
from provgraph.query.recipes.env_contents import flatten, image_ref
from provgraph.query.recipes.resources import RESOURCES, resources_of
from provgraph.schemas.storage import PARAMS, decode_json, record_of

FINAL, LAST = "final", "last"
"""Metric sources: a value of `final_metrics`, or the last logged point of a series."""
_LOGGED, _LOGGED_STEP = "metric.", "metric_step."
_ENV_CONTENT = (
    "python_version",
    "driver_version",
    "frameworks",
    "parallel_libs",
    "compute_libs",
    "packages",
    "system",
)
_CODE_FIELDS = ("repo", "commit", "dirty", "entrypoint")  # the branch name is not the code


@dataclass(frozen=True, order=True)
class MetricDef:
    """One metric definition: its source, split and name. `val/loss` is `loss` on split `val`;
    a name without `/` has no split. Values of two definitions never share a column."""

    source: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.source}:{self.name}"

    @property
    def split(self) -> str | None:
        head, sep, _ = self.name.partition("/")
        return head if sep else None

    @property
    def metric(self) -> str:
        return self.name.partition("/")[2] or self.name

    def as_dict(self) -> dict[str, Any]:
        keys = ("key", "source", "name", "split", "metric")
        return {k: getattr(self, k) for k in keys}


@dataclass(frozen=True)
class Change:
    """One setting that differs between a run and its comparison run."""

    kind: str  # param | input | environment | code | base | resources
    name: str
    before: Any
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class RunRow:
    """What one run contributes to the table (from one record of the compare read)."""

    id: str
    props: Mapping[str, Any]
    experiment: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    inputs: tuple[tuple[str, str], ...] = ()
    environment: Mapping[str, Any] | None = None
    base: Mapping[str, Any] | None = None
    resumes: tuple[Mapping[str, Any], ...] = ()
    metrics: Mapping[MetricDef, tuple[float, int | None]] = field(default_factory=dict)
    data_gates: tuple[Mapping[str, Any], ...] = ()
    """The flags of the dataset versions it trains on (`data_gates.trained_on`)."""
    resources: Mapping[str, Any] = field(default_factory=dict)

    @property
    def number(self) -> int | None:
        value = self.props.get("run_number")
        return value if isinstance(value, int) else None

    @property
    def code(self) -> dict[str, Any]:
        found = record_of(self.props, "code")
        return {k: found[k] for k in _CODE_FIELDS if k in found}

    def order(self) -> tuple[str, bool, int, str, str]:
        """Experiment, then run number (unnumbered last), then start time, then id."""
        started = str(self.props.get("started_at") or "")
        return (self.experiment or "", self.number is None, self.number or 0, started, self.id)


# ---- reading a record ------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _slashed(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested final metrics as `split/name` (`{"val": {"loss": 1}}` is `val/loss`)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.update(_slashed(value, f"{prefix}{key}/"))
        else:
            out[f"{prefix}{key}"] = value
    return out


def metrics_of(props: Mapping[str, Any]) -> dict[MetricDef, tuple[float, int | None]]:
    """Numeric final metrics (at the final step) and the last value of each logged series."""
    out: dict[MetricDef, tuple[float, int | None]] = {}
    final_step = props.get("final_step")
    step = final_step if isinstance(final_step, int) else None
    for name, value in _slashed(decode_json(props, "final_metrics") or {}).items():
        number = _number(value)
        if number is not None:
            out[MetricDef(FINAL, name)] = (number, step)
    for key, value in props.items():
        number = _number(value)
        if key.startswith(_LOGGED) and number is not None:
            name = key[len(_LOGGED) :]
            logged_step = props.get(_LOGGED_STEP + name)
            out[MetricDef(LAST, name)] = (
                number,
                logged_step if isinstance(logged_step, int) else None,
            )
    return out


def row_of(record: Mapping[str, Any]) -> RunRow:
    """A run of the compare read: {run, experiment, inputs, environments, bases, resumes}."""
    props = record["run"]
    inputs = sorted((str(u.get("role") or ""), str(u["id"])) for u in record["inputs"])
    envs = sorted(record["environments"], key=lambda e: str(e["id"]))
    bases = sorted(record["bases"], key=lambda b: str(b["id"]))
    resumes = sorted(record["resumes"], key=lambda c: (c.get("step") or 0, str(c["id"])))
    return RunRow(
        id=str(props["id"]),
        props=props,
        experiment=record.get("experiment"),
        params=flatten(decode_json(props, PARAMS) or {}),
        inputs=tuple(inputs),
        environment=envs[0] if envs else None,
        base=bases[0] if bases else None,
        resumes=tuple(resumes),
        metrics=metrics_of(props),
        data_gates=tuple(trained_on(record["inputs"])),
        resources=resources_of(props),
    )


# ---- the one-change check --------------------------------------------------------------------


def _dataset(version_id: str) -> str:
    return version_id.rsplit("@", 1)[0] if "@" in version_id else version_id


def _grouped_inputs(row: RunRow) -> dict[str, str]:
    """`<role> <dataset>` -> its version id(s) (a run rarely reads two versions of one)."""
    out: dict[str, list[str]] = {}
    for role, version in row.inputs:
        out.setdefault(f"{role} {_dataset(version)}", []).append(version)
    return {k: ", ".join(sorted(v)) for k, v in out.items()}


def _keyed_changes(kind: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    """One change per key whose value differs (a key on one side only differs)."""
    keys = sorted(a.keys() | b.keys())
    return [
        Change(kind, k, a.get(k), b.get(k))
        for k in keys
        if (k in a, a.get(k)) != (k in b, b.get(k))
    ]


def _env_content(env: Mapping[str, Any]) -> dict[str, Any]:
    content = {k: decode_json(env, k) if k not in env else env[k] for k in _ENV_CONTENT}
    content["image"] = image_ref(env)
    return {k: v for k, v in content.items() if v not in (None, {}, [])}


def _environment_change(a: RunRow, b: RunRow) -> list[Change]:
    """Two environments differ unless they are one, or both recorded the same contents
    (a new snapshot id of an identical image and package set is not a change)."""
    ea, eb = a.environment, b.environment
    ida, idb = (ea or {}).get("id"), (eb or {}).get("id")
    if ida == idb:
        return []
    if ea is not None and eb is not None:
        ca, cb = _env_content(ea), _env_content(eb)
        if ca and ca == cb:
            return []
    return [Change("environment", "environment", ida, idb)]


def _code_text(code: Mapping[str, Any]) -> str | None:
    if not code:
        return None
    text = str(code.get("commit", "?"))
    return f"{text} (dirty)" if code.get("dirty") else text


def _code_change(a: RunRow, b: RunRow) -> tuple[list[Change], list[str]]:
    """A changed commit, repo, entrypoint or dirty flag; an unchanged dirty tree cannot be
    told apart from a changed one, so it is noted as unverifiable instead."""
    ca, cb = a.code, b.code
    if ca != cb:
        return [Change("code", "code", _code_text(ca), _code_text(cb))], []
    if ca.get("dirty"):
        return [], ["code: both trees were dirty (uncommitted changes cannot be compared)"]
    return [], []


def _base_change(a: RunRow, b: RunRow) -> list[Change]:
    before, after = (a.base or {}).get("id"), (b.base or {}).get("id")
    return [] if before == after else [Change("base", "base", before, after)]


def changes(a: RunRow, b: RunRow) -> tuple[list[Change], list[str]]:
    """Every setting of b that differs from a (params, inputs by role and dataset,
    environment, code, base, resources by name), and what could not be verified. Resuming is
    not a setting."""
    found = _keyed_changes("param", a.params, b.params)
    found += _keyed_changes("input", _grouped_inputs(a), _grouped_inputs(b))
    found += _environment_change(a, b)
    code, unverifiable = _code_change(a, b)
    resources = _keyed_changes(RESOURCES, a.resources, b.resources)
    return found + code + _base_change(a, b) + resources, unverifiable


def comparison_runs(rows: Sequence[RunRow], baseline: str | None) -> dict[str, str | None]:
    """Each run's comparison run: the baseline, or the previous run of its experiment by
    number (rows in `RunRow.order`); the baseline and each experiment's first have none."""
    out: dict[str, str | None] = {}
    previous: dict[str | None, str] = {}
    for row in sorted(rows, key=RunRow.order):
        if baseline is not None:
            out[row.id] = None if row.id == baseline else baseline
        else:
            out[row.id] = previous.get(row.experiment)
            previous[row.experiment] = row.id
    return out


def check(row: RunRow, against: RunRow | None, basis: str) -> dict[str, Any]:
    """The check of one run: its comparison run, the settings that differ, the flag."""
    if against is None:
        return {"against": None, "basis": None, "changes": [], "flagged": False, "unverifiable": []}
    found, unverifiable = changes(against, row)
    return {
        "against": against.id,
        "basis": basis,
        "changes": [c.as_dict() for c in found],
        "flagged": len(found) > 1,
        "unverifiable": unverifiable,
    }
