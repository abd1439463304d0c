"""Assemble a reproduce recipe from the records of the `read.recipe_reads.RecipeReads` port.

Whatever is missing is said so: placeholders, deleted nodes, files deleted, a run without
environment, code or inputs, a dataset version trained on whose quality gates failed or were
never recorded, a chain cut at its bound all land in `gaps`, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read.model import Scope
from provgraph.query.read.recipe_reads import RecipeReads, Record
from provgraph.query.recipes.data_gates import GATES, TRAIN, gates_issue
from provgraph.query.recipes.env_contents import MAPS, image_parts, image_ref
from provgraph.schemas.storage import (
    DELETED_AT,
    PARAMS,
    PLACEHOLDER,
    decode_json,
    record_key,
    record_of,
)

_SOURCE_FIELDS = ("uri", "obtained_by", "licence", "compliance_note")
"""Where a dataset version's raw data came from (`source` of `dataset.version.created`)."""


def _placeholder(props: Mapping[str, Any]) -> bool:
    return bool(props.get(PLACEHOLDER, False))


def checkpoint_view(props: Mapping[str, Any], run: str | None = None) -> dict[str, Any]:
    view = {k: props.get(k) for k in ("id", "step", "epoch", "uri", "checksum", "status")}
    view["placeholder"] = _placeholder(props)
    if run is not None:
        view["run"] = run
    return view


def target_view(kind: str, props: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "name", "version", "step", "uri", "checksum", "status", "deleted_at")
    view: dict[str, Any] = {"type": kind, **{k: props.get(k) for k in keys if k in props}}
    view["placeholder"] = _placeholder(props)
    return view


def _dataset_view(props: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("id", "name", "version", "storage_uri", "checksum", "record_count")
    view: dict[str, Any] = {k: props.get(k) for k in keys}
    if props.get(DELETED_AT):
        view[DELETED_AT] = props[DELETED_AT]
    view["cleaning_rules"] = decode_json(props, "cleaning_rules") or []
    view["split"] = decode_json(props, "split")
    view["source"] = _source_view(props)
    view["placeholder"] = _placeholder(props)
    return view


def _source_view(props: Mapping[str, Any]) -> dict[str, Any] | None:
    """The recorded source with every field (None where not given); None when none was."""
    source = {k: props.get(record_key("source", k)) for k in _SOURCE_FIELDS}
    return source if any(v is not None for v in source.values()) else None


def _environment_view(env: Mapping[str, Any]) -> dict[str, Any]:
    """Every recorded element of the snapshot (the sections `diff` and `env-diff` compare),
    the maps as recorded (nested, not dotted), the images also as `name:tag@digest` (the base
    image null when none was recorded)."""
    base_ref = image_ref(env, "base_image")
    return {
        "id": env.get("id"),
        "image": image_parts(env),
        "image_ref": image_ref(env),
        "base_image": image_parts(env, "base_image") if base_ref else None,
        "base_image_ref": base_ref,
        "python_version": env.get("python_version"),
        "driver_version": env.get("driver_version"),
        **{section: decode_json(env, section) or {} for section in MAPS},
        "placeholder": _placeholder(env),
    }


class RecipeBuilder:
    """Walks from a producing run up its base-model and resume chains, `max_levels` deep,
    reading what the caller's `scope` may read."""

    def __init__(self, reads: RecipeReads, scope: Scope, max_levels: int = 5) -> None:
        self.reads = reads
        self.scope = scope
        self.max_levels = max_levels
        self.gaps: list[dict[str, Any]] = []
        self.datasets: set[str] = set()
        self._runs_seen: set[str] = set()

    def gap(self, at: str | None, issue: str) -> None:
        entry = {"at": at, "issue": issue}
        if entry not in self.gaps:
            self.gaps.append(entry)

    def flag(self, props: Mapping[str, Any]) -> None:
        """Record the gaps a node itself carries."""
        node = props.get("id")
        if props.get(PLACEHOLDER):
            self.gap(node, "placeholder: referenced, but its own event was never recorded")
        if props.get(DELETED_AT):
            self.gap(node, "deleted")
        if props.get("status") == "files_deleted":
            self.gap(node, "files deleted")

    def run(self, run_id: str | None, level: int, before_step: int | None = None) -> Any:
        """The recipe of one run, or None (with a gap) when it cannot be read."""
        if run_id is None:
            return None
        if level >= self.max_levels:
            self.gap(run_id, f"chain cut at {self.max_levels} levels")
            return None
        if run_id in self._runs_seen:
            self.gap(run_id, "cycle: run already in this recipe")
            return None
        self._runs_seen.add(run_id)
        record = self.reads.run(run_id, self.scope)
        if record is None:
            self.gap(run_id, "missing")
            return None
        return self._run_view(record, level, before_step)

    def _run_view(self, record: Record, level: int, before_step: int | None) -> dict[str, Any]:
        run = record["run"]
        self.flag(run)
        run_id = run["id"]
        code = record_of(run, "code")
        if not code.get("commit"):
            self.gap(run_id, "no code commit recorded")
        return {
            "id": run_id,
            "name": run.get("name"),
            "status": run.get("status"),
            "placeholder": _placeholder(run),
            "params": decode_json(run, PARAMS) or {},
            "code": code,
            "resources": decode_json(run, "resources"),
            "environment": self._environment(run_id, record["environments"]),
            "inputs": self._inputs(run_id, record["inputs"]),
            "resumed_from": self._resumes(run_id, record["resumes"], before_step, level),
            "base": self._base(run_id, record["bases"], level),
        }

    def _environment(self, run_id: str, envs: Sequence[Record]) -> dict[str, Any] | None:
        if not envs:
            self.gap(run_id, "no environment recorded")
            return None
        self.flag(envs[0])
        return _environment_view(envs[0])

    def _inputs(self, run_id: str, inputs: Sequence[Record]) -> list[dict[str, Any]]:
        if not inputs:
            self.gap(run_id, "no input datasets recorded")
            return []
        nodes, edges = self.reads.derivation([i["id"] for i in inputs], self.scope)
        by_id = {n["id"]: n for n in nodes}
        for node in nodes:
            self.flag(node)
        self.datasets.update(by_id)
        for used in inputs:
            self._gates(run_id, used, by_id.get(used["id"]))
        upstream: dict[str, list[Record]] = {}
        for edge in edges:
            upstream.setdefault(edge["src"], []).append(edge)
        return [
            {"role": i["role"], **self._tree(i["id"], by_id, upstream, frozenset())} for i in inputs
        ]

    def _gates(self, run_id: str, used: Record, node: Record | None) -> None:
        """A gap at a dataset version the run trains on whose quality gates failed or were
        never recorded (`data_gates`)."""
        if used["role"] != TRAIN or node is None:
            return
        issue = gates_issue(decode_json(node, GATES))
        if issue is not None:
            self.gap(used["id"], f"{issue} (trained on by {run_id})")

    def _tree(
        self,
        node_id: str,
        nodes: Mapping[str, Record],
        upstream: Mapping[str, Sequence[Record]],
        path: frozenset[str],
    ) -> dict[str, Any]:
        view = _dataset_view(nodes[node_id])
        view["derived_from"] = [
            {"transform": e["transform"], **self._tree(e["dst"], nodes, upstream, path | {node_id})}
            for e in sorted(upstream.get(node_id, ()), key=lambda e: str(e["dst"]))
            if e["dst"] not in path | {node_id}  # a derivation cycle is shown once
        ]
        return view

    def _resumes(
        self, run_id: str, resumes: Sequence[Record], before_step: int | None, level: int
    ) -> list[dict[str, Any]]:
        """The checkpoints this run resumed from (only those before `before_step` of its own
        checkpoints), and the resume chain of another run whose checkpoint it resumed."""
        chain: list[dict[str, Any]] = []
        for resume in resumes:
            props, maker = resume["props"], (resume["runs"] or [None])[0]
            step = props.get("step")
            own = maker == run_id
            if own and before_step is not None and step is not None and step >= before_step:
                continue
            self.flag(props)
            if maker is None:
                self.gap(props.get("id"), "no producing run")
            entry = checkpoint_view(props, maker)
            if not own and maker is not None:
                entry["run_recipe"] = self.run(maker, level + 1, step)
            chain.append(entry)
        return chain

    def _base(self, run_id: str, bases: Sequence[Record], level: int) -> dict[str, Any] | None:
        if not bases:
            return None
        base = bases[0]
        props = base["props"]
        self.flag(props)
        maker = (base["runs"] or [None])[0]
        if maker is None:
            self.gap(props.get("id"), "no producing run")
        view = target_view(base["type"], props)
        step = props.get("step") if base["type"] == "Checkpoint" else None
        view["run"] = self.run(maker, level + 1, step)
        return view
