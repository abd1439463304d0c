"""`DigestReads` in memory: runs and items as the digest reads them, and the runs of each
target of the checkpoint advice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read.digest_reads import ADVICE_KINDS, AdviceRecords, DigestRecords
from provgraph.query.read.model import Scope
from provgraph.schemas import parse_id

Record = dict[str, Any]


def _item_project(item: Record) -> str | None:
    return item.get("project") or parse_id(item["node"]["id"]).project


class FakeDigestReads:
    """`runs` and `items` are records as `digest_run` and `digest_item` answer them; `advice`
    maps a run id, an experiment id or a project to its runs, latest first. A run is readable
    by its `project` (a run without one only by whoever reads everything). Every call's
    arguments are kept in `asked`."""

    def __init__(
        self,
        runs: Sequence[Record] = (),
        items: Sequence[Record] = (),
        advice: Mapping[str, Sequence[Record]] | None = None,
    ) -> None:
        self.runs, self.items = list(runs), list(items)
        self.advice = {k: list(v) for k, v in (advice or {}).items()}
        self.asked: list[dict[str, Any]] = []

    def digest(
        self, projects: Sequence[str], since: str, until: str, limit: int, scope: Scope
    ) -> DigestRecords:
        self.asked.append(
            {"projects": list(projects), "since": since, "until": until, "limit": limit,
             "scope": scope}
        )  # fmt: skip
        runs = [r for r in self.runs if r.get("project") in projects and scope.allows(r["project"])]
        items = [
            i
            for i in self.items
            if _item_project(i) in projects
            and scope.allows(_item_project(i))
            and since <= i["at"] < until
        ]
        truncated = len(runs) > limit or len(items) > limit
        return DigestRecords(runs[:limit], items[:limit], truncated)

    def advice_runs(
        self, kind: str, target: str, limit: int, checkpoints: int, scope: Scope
    ) -> AdviceRecords:
        if kind not in ADVICE_KINDS:
            raise ValueError(f"kind must be one of {ADVICE_KINDS}, got {kind!r}")
        self.asked.append({"kind": kind, "target": target, "limit": limit, "scope": scope})
        known = target in self.advice
        runs = [
            {**r, "checkpoints": list(r.get("checkpoints") or ())[:checkpoints]}
            for r in self.advice.get(target, ())
            if scope.allows(r.get("project"))
        ]
        found = bool(runs) if kind == "project" else known
        return AdviceRecords(found, runs[:limit], len(runs) > limit)
