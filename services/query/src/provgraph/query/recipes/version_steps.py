"""A dataset version step opened (pure): when two runs used different versions of one
dataset, what each version recorded (`dataset.version.created`), side by side.

`diff` pairs, per input role, a version only run a used with a version of the same dataset
only run b used (the step `v1 -> v2`), reads both versions (`RecipeReads.derivation`: their
stored properties and what they were derived from) and lists each recorded fact of the two:
the change note, the cleaning rules, the split, the mix (the versions it was derived from, with
transform and weight), record count and size, quality gates, source, storage and checksums;
`changed` names the facts that differ. A fact neither version recorded is left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from provgraph.schemas.storage import decode_json, record_of

FACTS = (
    "change_note",
    "previous_version",
    "cleaning_rules",
    "split",
    "mix",
    "record_count",
    "size_bytes",
    "quality_gates",
    "source",
    "storage_uri",
    "checksum",
    "fingerprint",
)
"""What a version step shows of each side, in this order."""
_PLAIN = ("change_note", "previous_version", "record_count", "size_bytes", "storage_uri",
          "checksum", "fingerprint")  # fmt: skip
_JSON = ("cleaning_rules", "split", "quality_gates")


def dataset_of(version: str) -> str:
    """The dataset of a version id: `dataset:p/web@v2` -> `dataset:p/web`."""
    return version.partition("@")[0]


def version_pairs(inputs: Mapping[str, Mapping[str, Sequence[str]]]) -> list[dict[str, str]]:
    """From `diff`'s inputs (per role, the versions only b used and only a used), each step
    from a version of a dataset to another of the same dataset: {role, dataset, a, b}, by role
    then dataset. Several versions of one dataset on a side pair up in id order."""
    pairs = []
    for role, change in sorted(inputs.items()):
        removed = _by_dataset(change.get("removed", ()))
        added = _by_dataset(change.get("added", ()))
        for dataset in sorted(removed.keys() & added.keys()):
            for a, b in zip(removed[dataset], added[dataset], strict=False):
                pairs.append({"role": role, "dataset": dataset, "a": a, "b": b})
    return pairs


def _by_dataset(versions: Iterable[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for version in sorted(versions):
        out.setdefault(dataset_of(version), []).append(version)
    return out


def version_facts(
    props: Mapping[str, Any] | None, mix: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """What one version recorded, by fact (None: not recorded; all None for a version that
    cannot be read). `mix`: the edges it derives from ({dst, transform, weight})."""
    if props is None:
        return dict.fromkeys(FACTS)
    facts: dict[str, Any] = {name: props.get(name) for name in _PLAIN}
    facts.update({name: decode_json(props, name) for name in _JSON})
    facts["source"] = {k: v for k, v in record_of(props, "source").items() if v is not None} or None
    parts = [
        {"dataset_version": e["dst"], "transform": e.get("transform"), "weight": e.get("weight")}
        for e in sorted(mix, key=lambda e: str(e["dst"]))
    ]
    facts["mix"] = parts or None
    return {name: facts[name] for name in FACTS}


def opened_step(
    pair: Mapping[str, str],
    nodes: Mapping[str, Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """One version step with both sides' facts: {role, dataset, a, b, readable {a, b}, facts
    [{name, a, b, changed}] (those either side recorded), changed [names]}."""
    sides = {
        side: version_facts(nodes.get(pair[side]), [e for e in edges if e["src"] == pair[side]])
        for side in ("a", "b")
    }
    facts = [
        {"name": name, "a": sides["a"][name], "b": sides["b"][name],
         "changed": sides["a"][name] != sides["b"][name]}
        for name in FACTS
        if sides["a"][name] is not None or sides["b"][name] is not None
    ]  # fmt: skip
    return {
        **pair,
        "readable": {side: pair[side] in nodes for side in ("a", "b")},
        "facts": facts,
        "changed": [f["name"] for f in facts if f["changed"]],
    }


def open_steps(
    pairs: Sequence[Mapping[str, str]],
    nodes: Iterable[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Every version step opened, from the versions' stored properties and derivation edges."""
    by_id = {str(n["id"]): n for n in nodes}
    return [opened_step(pair, by_id, edges) for pair in pairs]


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        return "; ".join(_part(v) for v in value)
    return _compact(value)


def _part(value: Mapping[str, Any]) -> str:
    """A cleaning rule (`dedup minhash {threshold: 0.8}`) or a mix part (`dataset:p/a@v1 x0.7
    (filter)`), as one short text."""
    if "dataset_version" in value:
        weight = "" if value.get("weight") is None else f" x{value['weight']:g}"
        how = f" ({value['transform']})" if value.get("transform") else ""
        return f"{value['dataset_version']}{weight}{how}"
    params = value.get("params")
    extra = f" {_compact(params)}" if params else ""
    return f"{value.get('kind', '')} {value.get('name', '')}{extra}".strip()


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), ensure_ascii=False)


def step_lines(steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """The steps for people: a head per step, then each fact as `a | b`, `*` marking those
    that differ."""
    out = []
    for step in steps:
        changed = ", ".join(step["changed"]) or "nothing recorded differs"
        out.append(
            f"  dataset {step['dataset']} ({step['role']}): {step['a']} -> {step['b']}: {changed}"
        )
        for fact in step["facts"]:
            mark = "*" if fact["changed"] else " "
            out.append(f"   {mark} {fact['name']}: {_shown(fact['a'])} | {_shown(fact['b'])}")
    return out
