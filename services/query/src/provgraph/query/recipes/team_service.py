"""`digest` and `advise-checkpoints`: one bounded read each (the `read.digest_reads.DigestReads`
port), then the pure computation (`recipes/digest.py`, `recipes/checkpoint_advice.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.digest_reads import DigestReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes.checkpoint_advice import DEFAULT_MAX_REWORK_S, advise
from provgraph.query.recipes.digest import DEFAULT_STALLED_AFTER_S, digest
from provgraph.schemas import IdKind, InvalidIdError, parse_id
from provgraph.schemas.storage import format_time

MAX_CHECKPOINTS_PER_RUN = 2000
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


def parse_duration(text: str, argument: str) -> float:
    """`30m`, `2h`, `7d`, `1w`, `90s` as seconds; `invalid_argument` naming `argument`."""
    found = _DURATION.match(text)
    if found is None or float(found.group(1)) <= 0:
        raise InvalidArgumentError(
            f"{argument}: '{text}' is not a duration such as 30m, 2h or 7d", argument=argument
        )
    return float(found.group(1)) * _UNITS[found.group(2)]


def parse_instant(text: str | None, argument: str) -> datetime:
    """An ISO 8601 time (UTC when no offset is given); now when `text` is None."""
    if text is None:
        return datetime.now(UTC)
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidArgumentError(f"{argument}: '{text}' is not an ISO 8601 time") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _advice_kind(target: str) -> str:
    try:
        kind = parse_id(target).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"target: {exc}", argument="target") from None
    if kind not in (IdKind.RUN, IdKind.EXPERIMENT):
        raise InvalidArgumentError(
            f"advise-checkpoints takes a run or an experiment id, not a {kind} id",
            argument="target",
        )
    return "run" if kind is IdKind.RUN else "experiment"


class TeamQuestions:
    """The digest and the checkpoint advice over a `DigestReads`; at most `max_rows` runs (and
    items) in one answer."""

    def __init__(self, reads: DigestReads, max_rows: int) -> None:
        self._reads = reads
        self._max_rows = max_rows

    def digest(
        self,
        projects: Sequence[str],
        scope: Scope,
        *,
        since_s: float,
        until: datetime | None = None,
        stalled_after_s: float = DEFAULT_STALLED_AFTER_S,
    ) -> dict[str, Any]:
        """The digest of `projects` over the `since_s` seconds before `until` (default now)."""
        if not projects:
            raise InvalidArgumentError("digest needs at least one project", argument="project")
        end = until or datetime.now(UTC)
        since, upto = format_time(end - timedelta(seconds=since_s)), format_time(end)
        found = self._reads.digest(projects, since, upto, self._max_rows, scope)
        return digest(
            found.runs,
            found.items,
            projects=projects,
            since=since,
            until=upto,
            stalled_after_s=stalled_after_s,
            truncated=found.truncated,
        )

    def advise_checkpoints(
        self,
        scope: Scope,
        *,
        target: str | None = None,
        project: str | None = None,
        max_rework_s: float = DEFAULT_MAX_REWORK_S,
    ) -> dict[str, Any]:
        """The advice for a run, an experiment (`target`) or a project; `not_found` when the
        run or experiment is missing or unreadable, or the project has no readable run."""
        if (target is None) == (project is None):
            raise InvalidArgumentError("give a run or experiment id, or a project, not both")
        kind = _advice_kind(target) if target is not None else "project"
        asked = target if target is not None else str(project)
        found = self._reads.advice_runs(kind, asked, self._max_rows, MAX_CHECKPOINTS_PER_RUN, scope)
        if not found.found:
            raise NotFoundError(f"Not found: {asked}.", missing={kind: asked})
        answer = advise(found.runs, max_rework_s=max_rework_s)
        return {"target": asked, "kind": kind, **answer, "truncated": found.truncated}
