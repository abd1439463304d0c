"""`retention`: which dataset versions, checkpoints and model versions of a project must be
kept, and which may be deleted, from the graph (the `read.retention_reads.RetentionReads`
port, read in pages) and one pure walk.

Kept first hand: a model version a live active deployment serves; one not retired (any other
status); one retired within the period; a node another project's node stands on; a node a
running run produced; a dataset version or checkpoint first recorded within the period (nothing
may have used it yet). Kept because of those: everything upstream of a kept node or of a
running run, through runs (what they used, started from, resumed from), derivations, exports
and what produced them. The rest is deletable; soft-deleted nodes are listed as deleted.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from provgraph.query.errors import InvalidArgumentError, LimitExceededError
from provgraph.query.read.model import Scope
from provgraph.query.read.retention_reads import Artefact, RetentionReads, RunLinks
from provgraph.schemas.storage import format_time

PAGE = 1000
"""Nodes one read answers at most."""
MAX_NODES = 500_000
"""Nodes (artefacts and runs) one advice reads at most: beyond, it refuses to answer."""

IN_SERVICE = "in_service"
NOT_RETIRED = "not_retired"
RETIRED_WITHIN = "retired_within_period"
USED_ELSEWHERE = "used_by_another_project"
RUN_RUNNING = "produced_by_running_run"
RECENT = "recorded_within_period"
UPSTREAM = "upstream_of_kept"

_PERIOD = re.compile(r"^(\d+)([dwh])$")
_UNIT_HOURS = {"h": 1, "d": 24, "w": 24 * 7}


def parse_period(text: str, argument: str = "--keep-after-retire") -> timedelta:
    """`180d`, `26w` or `72h` as a period; `invalid_argument` otherwise."""
    found = _PERIOD.match(text.strip())
    if found is None or int(found.group(1)) == 0:
        raise InvalidArgumentError(
            f"{argument}: '{text}' is not a period such as 180d, 26w or 72h "
            "(a positive whole number of days d, weeks w or hours h)",
            argument=argument,
        )
    return timedelta(hours=int(found.group(1)) * _UNIT_HOURS[found.group(2)])


def _paged(read: Any, project: str, scope: Scope, page: int, budget: list[int]) -> Iterator[Any]:
    """Every item of `read` (artefacts or runs), page after page; `budget` counts down."""
    after = ""
    while True:
        items: list[Artefact] | list[RunLinks] = read(project, scope, after=after, first=page)
        budget[0] -= len(items)
        if budget[0] < 0:
            raise LimitExceededError(
                f"project {project} holds more than {MAX_NODES} nodes to advise on",
                max_nodes=MAX_NODES,
            )
        yield from items
        if len(items) < page:
            return
        after = items[-1].id


def retention_advice(
    reads: RetentionReads,
    project: str,
    scope: Scope,
    *,
    now: datetime,
    period: str,
    page: int = PAGE,
    max_nodes: int = MAX_NODES,
) -> dict[str, Any]:
    """The advice on every dataset version, checkpoint and model version of `project`."""
    keep_for = parse_period(period)
    budget = [max_nodes]
    artefacts: list[Artefact] = list(_paged(reads.artefacts, project, scope, page, budget))
    runs: list[RunLinks] = list(_paged(reads.runs, project, scope, page, budget))
    answer = advise(artefacts, runs, cutoff=format_time(now - keep_for), period=period)
    return {"project": project, "now": format_time(now), **answer}


def _reason(rule: str, text: str, by: str | None = None) -> dict[str, Any]:
    return {"rule": rule, "by": by, "text": text}


def _first_hand(
    node: Artefact, running: set[str], cutoff: str, period: str
) -> list[dict[str, Any]]:
    """Why `node` is kept for itself (empty: it is not)."""
    out: list[dict[str, Any]] = []
    if node.served_by:
        out.append(_reason(IN_SERVICE, f"in service: {', '.join(node.served_by)}",
                           node.served_by[0]))  # fmt: skip
    if node.kind == "ModelVersion" and node.status != "retired":
        out.append(_reason(NOT_RETIRED, f"not retired (status {node.status or 'unknown'})"))
    elif node.kind == "ModelVersion" and (node.retired_at or "") >= cutoff:
        out.append(_reason(RETIRED_WITHIN, f"retired {_day(node.retired_at)}, within {period}"))
    for project in node.used_from:
        named = f"project {project}" if project else "a project you may not read"
        out.append(_reason(USED_ELSEWHERE, f"used by {named}", project))
    for rel, run in node.upstream:
        if rel == "GENERATED_BY" and run in running:
            out.append(_reason(RUN_RUNNING, f"its run {run} is still running", run))
    if node.kind != "ModelVersion" and (node.first_seen_at or "") >= cutoff:
        out.append(_reason(RECENT, f"recorded {_day(node.first_seen_at)}, within {period}"))
    return out


def _upstream_of(
    roots: list[str], links: Mapping[str, tuple[tuple[str, str], ...]]
) -> dict[str, str]:
    """For each node upstream of one of `roots`, the nearest root (the first by id on a tie):
    one breadth-first walk from all of them."""
    via: dict[str, str] = {}
    seen = set(roots)
    queue = deque((root, root) for root in roots)
    while queue:
        node, root = queue.popleft()
        for _, source in links.get(node, ()):
            if source != root and source not in via:
                via[source] = root
            if source not in seen:
                seen.add(source)
                queue.append((source, root))
    return via


def advise(
    artefacts: Iterable[Artefact], runs: Iterable[RunLinks], *, cutoff: str, period: str
) -> dict[str, Any]:
    """The advice over every artefact and run of one project (pure)."""
    nodes = {a.id: a for a in artefacts}
    run_list = list(runs)
    running = {r.id for r in run_list if r.status == "running"}
    links = {**{r.id: r.upstream for r in run_list}, **{a.id: a.upstream for a in nodes.values()}}
    reasons = {
        a.id: _first_hand(a, running, cutoff, period)
        for a in nodes.values()
        if a.deleted_at is None
    }
    roots = sorted({n for n, why in reasons.items() if why} | running)
    for node_id, root in _upstream_of(roots, links).items():
        if node_id in reasons:
            reasons[node_id].append(_reason(UPSTREAM, f"upstream of {root}", root))
    keep, deletable, deleted = [], [], []
    for node in sorted(nodes.values(), key=lambda a: a.id):
        if node.deleted_at is not None:
            deleted.append(_deleted(node))
        elif reasons[node.id]:
            keep.append({**_row(node), "reasons": reasons[node.id]})
        else:
            deletable.append({**_row(node), "reason": _why_deletable(node, period)})
    sizes = [d["frees_bytes"] for d in deletable if d["frees_bytes"] is not None]
    return {"keep_after_retire": period, "retired_before": cutoff, "keep": keep,
            "deletable": deletable, "already_deleted": deleted, "bytes_freed": sum(sizes),
            "sizes_unknown": len(deletable) - len(sizes)}  # fmt: skip


def _row(node: Artefact) -> dict[str, Any]:
    # A checkpoint whose files are already gone frees nothing more.
    gone = node.kind == "Checkpoint" and node.status == "files_deleted"
    frees = 0 if gone and node.size_bytes is not None else node.size_bytes
    return {"id": node.id, "kind": node.kind, "size_bytes": node.size_bytes, "frees_bytes": frees}


def _deleted(node: Artefact) -> dict[str, Any]:
    return {"id": node.id, "kind": node.kind, "deleted_at": node.deleted_at,
            "reason": node.deleted_reason}  # fmt: skip


def _why_deletable(node: Artefact, period: str) -> str:
    if node.kind == "ModelVersion":
        return f"retired {_day(node.retired_at)}, over {period} ago; nothing kept stands on it"
    return f"recorded {_day(node.first_seen_at)}; nothing kept stands on it"


def _day(stored: str | None) -> str:
    return stored[:10] if stored else "at an unknown time"


def deletion_reason(period: str, now: str) -> str:
    """The reason every `entity.deleted` of one advice carries: the rule and its period."""
    return f"retention: nothing kept stands on it (keep-after-retire {period}, advice at {now})"
