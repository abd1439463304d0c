"""Impact: the live model versions and deployments downstream of a node (a dataset version
that turned out bad), each with one shortest path back to it and, for a model version, its
evaluation results (suite, evaluation data, metric, value, when), so that one answer says
what must be looked at and how each model scored.

The evaluations are read as a model version's card reads them: `ReadModel.neighbours` over
EVALUATED (the version's evaluations) and then USED (each evaluation's dataset versions), one
read each for every version of the answer. `evaluation_results` shapes them (pure); GraphQL's
`ImpactItem.evaluationResults` batches the same function per request, `provgraph impact`
calls it once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from provgraph.query.read.model import Direction, ImpactItem, NodeView, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.query.recipes.plain_table import cell
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import decode_json

Result = dict[str, Any]


def results_of(evaluation: NodeView, datasets: Sequence[str]) -> list[Result]:
    """One row per metric the evaluation recorded (sorted by name), or one row with no
    metric when it recorded none (a pass or fail alone)."""
    props = evaluation.props
    metrics = decode_json(props, "metrics")
    pairs = sorted(metrics.items()) if isinstance(metrics, Mapping) and metrics else [(None, None)]
    return [
        {
            "evaluation": evaluation.id,
            "suite": props.get("suite"),
            "suite_version": props.get("suite_version"),
            "datasets": list(datasets),
            "metric": metric,
            "value": value,
            "passed": props.get("passed"),
            "evaluated_at": props.get("evaluated_at"),
        }
        for metric, value in pairs
    ]


def _order(row: Result) -> tuple[str, str, str, str, str]:
    return (
        row["evaluated_at"] or "",
        row["suite"] or "",
        ",".join(row["datasets"]),
        row["evaluation"],
        row["metric"] or "",
    )


def shaped(evaluations: Iterable[NodeView], datasets: Mapping[str, Sequence[str]]) -> list[Result]:
    """A model version's evaluation results, oldest first (then suite, data, metric)."""
    rows = [r for e in evaluations for r in results_of(e, datasets.get(e.id, ()))]
    return sorted(rows, key=_order)


def evaluation_results(
    reader: ReadModel, versions: Sequence[str], scope: Scope, as_of: str | None = None
) -> list[list[Result]]:
    """For each model version of `versions`, in the order asked, its evaluation results."""
    if not versions:
        return []
    found = reader.neighbours(versions, Rel.EVALUATED, Direction.DOWNSTREAM, scope, as_of)
    evaluations = [[v for _, v in pairs if v.type == Label.EVALUATION] for pairs in found]
    ids = sorted({e.id for some in evaluations for e in some})
    used = reader.neighbours(ids, Rel.USED, Direction.UPSTREAM, scope, as_of) if ids else []
    datasets = {
        e: sorted(v.id for _, v in pairs if v.type == Label.DATASET_VERSION)
        for e, pairs in zip(ids, used, strict=True)
    }
    return [shaped(some, datasets) for some in evaluations]


def impact_answer(
    reader: ReadModel, node_id: str, scope: Scope, as_of: str | None = None
) -> dict[str, Any] | None:
    """`provgraph impact`'s answer: {id, as_of, items: [{id, type, status, path (node ids
    from the start), edges ({from, to, type}), evaluations (a model version's results; empty
    for a deployment)}]}; None when the node is absent or unreadable."""
    found = reader.impact(node_id, scope, as_of)
    if found is None:
        return None
    versions = [i.node.id for i in found if i.node.type == Label.MODEL_VERSION]
    results = dict(zip(versions, evaluation_results(reader, versions, scope, as_of), strict=True))
    return {
        "id": node_id,
        "as_of": as_of,
        "items": [_item(i, results.get(i.node.id, [])) for i in found],
    }


def _item(item: ImpactItem, results: list[Result]) -> dict[str, Any]:
    node = item.node
    return {
        "id": node.id,
        "type": node.type,
        "status": node.props.get("status"),
        "path": [n.id for n in item.path.nodes],
        "edges": [{"from": e.src, "to": e.dst, "type": e.type} for e in item.path.edges],
        "evaluations": results,
    }


def _result_line(row: Mapping[str, Any]) -> str:
    suite = " ".join(s for s in (row["suite"], row["suite_version"]) if s) or "no suite"
    data = ", ".join(row["datasets"]) or "no dataset"
    score = "no metric" if row["metric"] is None else f"{row['metric']} = {cell(row['value'])}"
    verdict = {True: ", passed", False: ", failed"}.get(row["passed"], "")
    return f"    {suite} on {data}: {score}{verdict} ({row['evaluated_at'] or 'no time'})"


def render_impact(answer: Mapping[str, Any]) -> str:
    """The answer for people: each item with its status and path, a model version's
    evaluation results below it."""
    items = answer["items"]
    if not items:
        return f"nothing live downstream of {answer['id']}"
    lines = [f"downstream of {answer['id']}: {len(items)} live"]
    for item in items:
        lines.append(f"{item['type']} {item['id']} ({item['status'] or 'no status'})")
        lines.append("  via " + " -> ".join(item["path"]))
        if item["type"] != Label.MODEL_VERSION:
            continue
        if not item["evaluations"]:
            lines.append("  no evaluation recorded")
            continue
        lines.append("  evaluations:")
        lines.extend(_result_line(row) for row in item["evaluations"])
    return "\n".join(lines)
