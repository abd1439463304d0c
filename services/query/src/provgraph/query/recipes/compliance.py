"""The compliance report of a model version's data: every upstream source grouped by licence,
with its compliance note and how it was obtained; what is missing flagged; what was taken down
named with the models still in service that depend on it, and the path from each.

`ComplianceReport` reads (`read.compliance_reads` for the data upstream, `ReadModel.impact` for
what depends on a taken-down version); `assemble` and `render_compliance` are pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from provgraph.query.read.compliance_reads import ComplianceReads, ModelData, UpstreamData
from provgraph.query.read.model import ImpactItem, NodeView, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.schemas.graph import Label

Answer = dict[str, Any]

NO_LICENCE = "no licence"
NO_NOTE = "no compliance note"
NO_SOURCE = "no source"
TAKEN_DOWN = "taken down"


class ComplianceReport:
    """The report of one model version, read in the caller's `scope`."""

    def __init__(self, reads: ComplianceReads, graph: ReadModel) -> None:
        self._reads = reads
        self._graph = graph

    def report(self, model_version: str, scope: Scope) -> Answer | None:
        """The report; None when there is no such readable model version."""
        found = self._reads.model_data(model_version, scope)
        if found is None:
            return None
        served = {
            d.node.id: in_service(self._graph.impact(d.node.id, scope) or [])
            for d in found.data
            if d.node.deleted_at is not None
        }
        return assemble(found, served)


def in_service(items: Iterable[ImpactItem]) -> list[Answer]:
    """The model versions in service among what depends on a version (live ones, and those a
    live deployment serves), each once with the deployments serving it and the path from it
    to the version; `items` nearest first, as `ReadModel.impact` answers them."""
    models: dict[str, Answer] = {}
    for item in items:
        nodes = item.path.nodes
        at = max((i for i, n in enumerate(nodes) if n.type == Label.MODEL_VERSION), default=None)
        if at is None:
            continue
        model = nodes[at]
        entry = models.setdefault(model.id, _served(model, nodes[: at + 1]))
        if item.node.type == Label.DEPLOYMENT:
            entry["deployments"].append(item.node.id)
    return list(models.values())


def _served(model: NodeView, path: Sequence[NodeView]) -> Answer:
    return {
        "model_version": model.id,
        "status": model.props.get("status"),
        "deployments": [],
        "path": [node.id for node in reversed(path)],
    }


def flags(data: UpstreamData) -> list[str]:
    """What the version's record lacks: a derived version (or one a run produced) owes its
    source to what it came from, upstream too."""
    found = []
    if data.source:
        if not data.source.get("licence"):
            found.append(NO_LICENCE)
        if not data.source.get("compliance_note"):
            found.append(NO_NOTE)
    elif not data.made_from:
        found.append(NO_SOURCE)
    if data.node.deleted_at is not None:
        found.append(TAKEN_DOWN)
    return found


def _entry(data: UpstreamData) -> Answer:
    source = data.source
    return {
        "dataset_version": data.node.id,
        "uri": source.get("uri"),
        "obtained_by": source.get("obtained_by"),
        "licence": source.get("licence"),
        "compliance_note": source.get("compliance_note"),
        "flags": flags(data),
    }


def _licences(sourced: Sequence[UpstreamData]) -> list[Answer]:
    """The versions with a source by licence, by name; those without a licence last."""
    groups: dict[str | None, list[Answer]] = {}
    for data in sourced:
        groups.setdefault(data.source.get("licence") or None, []).append(_entry(data))
    order = sorted(groups, key=lambda licence: (licence is None, licence or ""))
    return [{"licence": licence, "dataset_versions": groups[licence]} for licence in order]


def assemble(found: ModelData, served: Mapping[str, list[Answer]]) -> Answer:
    """The report of `found`; `served`: for each taken-down version, the models in service
    that depend on it (`in_service`)."""
    model = found.model
    data = found.data
    taken = [d for d in data if d.node.deleted_at is not None]
    return {
        "model_version": model.id,
        "project": model.project,
        "status": model.props.get("status"),
        "licences": _licences([d for d in data if d.source]),
        "without_source": [_entry(d) for d in data if not d.source and not d.made_from],
        "derived": [_entry(d) for d in data if not d.source and d.made_from],
        "taken_down": [
            {
                "dataset_version": d.node.id,
                "at": d.node.deleted_at,
                "reason": d.deleted_reason,
                "in_service": served.get(d.node.id, []),
            }
            for d in taken
        ],
        "flagged": [d.node.id for d in data if flags(d)],
        "dataset_versions": len(data),
        "truncated": found.truncated,
    }


# ---- rendering ------------------------------------------------------------------------------


def _when(at: str | None) -> str:
    return (at or "?")[:16].replace("T", " ")


def _source_line(entry: Mapping[str, Any]) -> str:
    how = entry["obtained_by"] or "?"
    line = f"{entry['dataset_version']}: {how}, from {entry['uri'] or '?'}"
    return line + (f"; note: {entry['compliance_note']}" if entry["compliance_note"] else "")


def _flagged(line: str, entry: Mapping[str, Any]) -> str:
    return line + (f"  [{', '.join(entry['flags'])}]" if entry["flags"] else "")


Line = tuple[int, str]
"""A line of a section and how deep it is nested under the section's items (0: an item)."""


def _section(title: str, lines: Sequence[str | Line], markdown: bool) -> list[str]:
    out = [f"### {title}" if markdown else f"{title}:"]
    for line in lines:
        depth, text = line if isinstance(line, tuple) else (0, line)
        out.append(("  " * depth + "- " if markdown else "  " * (depth + 1)) + text)
    return [*out, ""]


def _takedown(item: Mapping[str, Any]) -> list[Line]:
    when = f"on {_when(item['at'])} UTC"
    lines = [(0, f"{item['dataset_version']} {when}: {item['reason'] or 'no reason recorded'}")]
    if not item["in_service"]:
        return [*lines, (1, "no model in service depends on it")]
    for served in item["in_service"]:
        by = f"; served by {', '.join(served['deployments'])}" if served["deployments"] else ""
        lines.append((1, f"in service: {served['model_version']} ({served['status'] or '?'}{by})"))
        lines.append((2, " → ".join(served["path"])))
    return lines


def render_compliance(report: Mapping[str, Any], *, markdown: bool = False) -> str:
    """The report for people: sources by licence, those without, the derived versions, and
    what was taken down."""
    count, flagged = report["dataset_versions"], len(report["flagged"])
    title = f"Compliance of {report['model_version']} ({report['status'] or 'no status'})"
    out = [f"## {title}" if markdown else title, ""]
    out.append(f"{count} dataset version(s) upstream, {flagged} flagged")
    out.append("")
    for group in report["licences"]:
        name = f"Licence {group['licence']}" if group["licence"] else "No licence recorded"
        lines = [_flagged(_source_line(e), e) for e in group["dataset_versions"]]
        out += _section(name, lines, markdown)
    if report["without_source"]:
        lines = [_flagged(e["dataset_version"], e) for e in report["without_source"]]
        out += _section("No source recorded", lines, markdown)
    if report["derived"]:
        lines = [_flagged(e["dataset_version"], e) for e in report["derived"]]
        out += _section("Derived (their sources are above)", lines, markdown)
    takedowns = [line for item in report["taken_down"] for line in _takedown(item)]
    out += _section("Taken down", takedowns or ["none"], markdown)
    if report["truncated"]:
        out.append("(truncated: the upstream walk hit its bound; more data may be upstream)")
    return "\n".join(out).rstrip() + "\n"
