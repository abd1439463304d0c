"""A project's metric aliases applied to what compare, best and effects read: a metric logged
under a declared alias is read under its canonical name (`schemas.conventions`), so runs and
evaluations that spelled one metric two ways are compared with each other.

A record that holds both spellings keeps the canonical one's value; the alias's value is then
left under the alias.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from provgraph.query.read.convention_reads import ConventionReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes.comparing import _slashed
from provgraph.schemas.storage import decode_json, encode_json, json_key

Aliases = Mapping[str, str]
_PREFIXES = ("metric.", "metric_step.", "final_metric.")
_FINALS = "final_metrics"


def spellings(metric: str, aliases: Aliases) -> list[str]:
    """The canonical name of `metric` first, then every alias of it, sorted."""
    canonical = aliases.get(metric, metric)
    return [canonical, *sorted(a for a, c in aliases.items() if c == canonical)]


def canonical_name(metric: str, aliases: Aliases) -> str:
    """`metric` (``kind:name`` or a bare name) with its name canonical."""
    kind, sep, name = metric.rpartition(":")
    return f"{kind}{sep}{aliases.get(name, name)}"


def canonical_props(props: Mapping[str, Any], aliases: Aliases) -> Mapping[str, Any]:
    """A run's (or an evaluation's) stored properties with each aliased metric under its
    canonical name: the flattened `metric.`, `metric_step.` and `final_metric.` keys and the
    final metrics' JSON (then flat, ``val/loss``, as `comparing.metrics_of` reads it)."""
    if not aliases:
        return props
    out = dict(props)
    for key in props:
        prefix = next((p for p in _PREFIXES if key.startswith(p)), None)
        if prefix is None:
            continue
        canonical = aliases.get(key[len(prefix) :])
        if canonical is not None and prefix + canonical not in props:
            out[prefix + canonical] = out.pop(key)
    finals = decode_json(props, _FINALS)
    if isinstance(finals, Mapping):
        flat = _slashed(finals)
        if any(name in aliases for name in flat):
            renamed = {
                aliases[k] if k in aliases and aliases[k] not in flat else k: v
                for k, v in flat.items()
            }
            out[json_key(_FINALS)] = encode_json(renamed)
    return out


class ProjectAliases:
    """Each project's declared aliases, read once per project through `ConventionReads`."""

    def __init__(self, reads: ConventionReads | None, scope: Scope) -> None:
        self._reads, self._scope = reads, scope
        self._known: dict[str, Aliases] = {}

    def of(self, project: str | None) -> Aliases:
        """The aliases `project` declared (none when it is unknown or declared none)."""
        if self._reads is None or not project:
            return {}
        if project not in self._known:
            found = self._reads.conventions(project, self._scope)
            self._known[project] = dict(found.metric_aliases) if found is not None else {}
        return self._known[project]


def canonical_records(
    records: Sequence[Mapping[str, Any]], aliases_of: Callable[[str | None], Aliases]
) -> list[dict[str, Any]]:
    """Compare's run records (``{"run": props, ...}``) with each run's metrics under the
    canonical names its project declared."""
    out: list[dict[str, Any]] = []
    for record in records:
        props = record["run"]
        aliases = aliases_of(props.get("project"))
        out.append({**record, "run": canonical_props(props, aliases)} if aliases else dict(record))
    return out
