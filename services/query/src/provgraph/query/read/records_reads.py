"""The read of `audit-records`: the `RecordsReads` port, and `RecordsReader`, its adapter over
Neo4j with its Cypher: a project's policy, and its records of one kind a page at a time.

A record is a Run, DatasetVersion or ModelVersion node of the project (deleted ones included:
the record is kept). Which elements it holds is read from the stored graph, one condition per
element of `records.ELEMENTS` (`ELEMENT_CONDITIONS`); who recorded it is the person of its
first own event (the one whose subject it is), or, for a placeholder, of the first event that
referred to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas import issued_name
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel
from provgraph.schemas.ids import project_id
from provgraph.schemas.records import (
    ELEMENTS,
    REQUIRE_PASSED_GATES,
    REQUIRED_ELEMENTS,
    RecordKind,
)
from provgraph.schemas.storage import (
    FIRST_SEEN_AT,
    PLACEHOLDER,
    PROJECT,
    dotted,
    parse_json,
    record_key,
)

KIND_LABELS: dict[RecordKind, Label] = {
    RecordKind.RUN: Label.RUN,
    RecordKind.DATASET_VERSION: Label.DATASET_VERSION,
    RecordKind.MODEL_VERSION: Label.MODEL_VERSION,
}
REQUIRE_CONCLUSION = "require_conclusion"
"""The Project node's property of a v1 policy: a run requires its conclusion."""
POLICY_SET_AT = "policy_set_at"
APPROVED_AT = dotted("status_at", "approved")
SOURCE_PREFIX = record_key("source", "")
BULK_EVENTS = ("run.metrics.logged",)
"""Events a run may have thousands of and that never record it first: not sorted through."""
ENDED = ("completed", "failed", "aborted")
"""A run in one of these states is due its conclusion; one still running is not yet."""

ELEMENT_CONDITIONS: dict[RecordKind, dict[str, str]] = {
    RecordKind.RUN: {
        "experiment": f"EXISTS {{ (n)-[:{Rel.PART_OF}]->(:{Label.EXPERIMENT}) }}",
        "run_number": "n.run_number IS NOT NULL",
        "code": f"n.{record_key('code', 'commit')} IS NOT NULL",
        "inputs": f"EXISTS {{ (n)-[:{Rel.USED}]->(:{Label.DATASET_VERSION}) }}",
        "environment": f"EXISTS {{ (n)-[:{Rel.RAN_IN}]->(:{Label.ENVIRONMENT}) }}",
        "conclusion": "(trim(coalesce(n.conclusion, '')) <> '' OR NOT n.status IN $ended)",
    },
    RecordKind.DATASET_VERSION: {
        "source": f"any(k IN keys(n) WHERE k STARTS WITH '{SOURCE_PREFIX}')",
        "licence": f"n.{record_key('source', 'licence')} IS NOT NULL",
    },
    RecordKind.MODEL_VERSION: {
        "evaluation": f"""EXISTS {{
            MATCH (ev:{Label.EVALUATION})-[:{Rel.EVALUATED}]->(n)
            WHERE n.`{APPROVED_AT}` IS NULL OR ev.evaluated_at < n.`{APPROVED_AT}` }}""",
    },
}
"""Per kind, per element of `records.ELEMENTS`, the Cypher condition on the record `n` that
holds when the record has it."""


def _present(kind: RecordKind) -> str:
    """The elements record `n` holds, as a list of their names."""
    cases = [
        f"CASE WHEN {condition} THEN '{element}' END"
        for element, condition in ELEMENT_CONDITIONS[kind].items()
    ]
    return f"[x IN [{', '.join(cases)}] WHERE x IS NOT NULL]"


def records_page(kind: RecordKind) -> str:
    """The records of `kind` of $project first seen at or after $since (when given), after
    the id $after, by id, at most $first: each with the elements it holds and the person of
    its first own event (else of the first event that named it)."""
    return f"""
MATCH (n:{KIND_LABELS[kind]}:{Label.ENTITY})
WHERE n.{PROJECT} = $project AND {visible("n")} AND n.id > $after
  AND ($since IS NULL OR n.{FIRST_SEEN_AT} >= $since)
WITH n ORDER BY n.id LIMIT $first
RETURN n.id AS id, n.{FIRST_SEEN_AT} AS recorded_at,
  coalesce(n.{PLACEHOLDER}, false) AS placeholder,
  {_present(kind)} AS present,
  head(COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE ($all OR e.{PROJECT} IN $projects) AND NOT e.event_type IN $bulk
    WITH e ORDER BY CASE WHEN e.subject = n.id THEN 0 ELSE 1 END, e.occurred_at, e.event_id
    LIMIT 1
    RETURN e {{.actor, .principal}}
  }}) AS first
ORDER BY id
"""


PROJECT_POLICY = f"""
OPTIONAL MATCH (p:{Label.PROJECT} {{id: $id}}) WHERE {visible("p")}
RETURN p.{REQUIRED_ELEMENTS} AS required, p.{REQUIRE_CONCLUSION} AS conclusion,
  p.{REQUIRE_PASSED_GATES} AS gates, p.{POLICY_SET_AT} AS set_at
"""


@dataclass(frozen=True)
class RecordFacts:
    """One record: its id, when it was first seen, whether it is a placeholder (referenced,
    never recorded), the elements it holds, and who recorded it (the claimed actor and the
    principal ingest stamped, as issued; None when unknown)."""

    id: str
    recorded_at: str
    placeholder: bool
    present: frozenset[str]
    actor: str | None
    principal: str | None


@dataclass(frozen=True)
class RecordsAsk:
    """One page asked: the records of `kind` of `project` first seen at or after `since` (when
    given), by id, the first `first` after the id `after`."""

    project: str
    kind: RecordKind
    since: str | None = None
    after: str = ""
    first: int = 1000


@dataclass(frozen=True)
class RecordsPage:
    """A page of records by id; `after` is the cursor of the next page, None on the last."""

    records: list[RecordFacts]
    after: str | None


@dataclass(frozen=True)
class ProjectPolicy:
    """The policy in force: per kind, the elements required (a v1 policy's
    `require_conclusion` read as `run: [conclusion]`), whether training needs passed gates,
    and when it was set."""

    required: dict[RecordKind, tuple[str, ...]]
    require_passed_gates: bool
    set_at: str | None


def record_facts(row: Mapping[str, Any]) -> RecordFacts:
    """One row of `records_page` as RecordFacts."""
    first = row.get("first") or {}
    return RecordFacts(
        id=str(row["id"]),
        recorded_at=str(row["recorded_at"]),
        placeholder=bool(row["placeholder"]),
        present=frozenset(str(e) for e in row["present"]),
        actor=first.get("actor"),
        principal=issued_name(first.get("principal")),
    )


def project_policy(row: Mapping[str, Any]) -> ProjectPolicy | None:
    """The Project node's policy properties as a ProjectPolicy; None when none was set."""
    raw, conclusion = row.get("required"), row.get("conclusion")
    if raw is None and conclusion is None and row.get("gates") is None:
        return None
    required: dict[RecordKind, tuple[str, ...]] = {}
    if isinstance(raw, str):
        decoded = parse_json(raw)
        for kind, elements in (decoded if isinstance(decoded, dict) else {}).items():
            if kind in ELEMENTS and isinstance(elements, list):
                required[RecordKind(kind)] = tuple(sorted(str(e) for e in elements))
    elif conclusion:
        required[RecordKind.RUN] = ("conclusion",)
    return ProjectPolicy(required, bool(row.get("gates")), row.get("set_at"))


class RecordsReads(Protocol):
    """What `recipes.records_audit` reads, in the caller's `Scope`: records and events of an
    unreadable project are left out."""

    def policy(self, project: str, scope: Scope) -> ProjectPolicy | None:
        """The policy `project` has set; None when it set none (or is unreadable)."""

    def records(self, ask: RecordsAsk, scope: Scope) -> RecordsPage:
        """The page of records `ask` names."""


class RecordsReader:
    """`RecordsReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def policy(self, project: str, scope: Scope) -> ProjectPolicy | None:
        """The policy `project` has set, or None."""
        params = {**scope_params(scope), "id": project_id(project)}
        (row,) = self._session.run(PROJECT_POLICY, params)
        return project_policy(row.data())

    def records(self, ask: RecordsAsk, scope: Scope) -> RecordsPage:
        """One page of records, by id."""
        params = {
            **scope_params(scope),
            "project": ask.project,
            "since": ask.since,
            "after": ask.after,
            "first": ask.first + 1,
            "ended": list(ENDED),
            "bulk": list(BULK_EVENTS),
        }
        found = self._session.run(records_page(ask.kind), params)
        return page_of([record_facts(r.data()) for r in found], ask.first)


def page_of(rows: Sequence[RecordFacts], first: int) -> RecordsPage:
    """The first `first` of `rows` (read one more than asked), and the cursor after them
    when there were more."""
    kept = list(rows[:first])
    return RecordsPage(kept, kept[-1].id if len(rows) > first and kept else None)
