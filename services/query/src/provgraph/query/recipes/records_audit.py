"""`audit-records`: how complete a project's records are, per kind, what is missing, how often
and by whom (assembly pure; `audit_records` pages through the `RecordsReads` port).

The elements required are the project's policy's when it set one that requires any
(`project.policy.set`), else `records.BASELINE`; the answer says which. A record is complete
when it holds every required element; a placeholder (referenced, never recorded) is
incomplete, as "never recorded". Every element any record lacks is listed, required or not,
with the number of records lacking it per person (the stamped principal of the record's first
event, else its claimed actor).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.read.model import Scope
from provgraph.query.read.records_reads import (
    ProjectPolicy,
    RecordFacts,
    RecordsAsk,
    RecordsReads,
)
from provgraph.query.recipes.digest import person
from provgraph.schemas.records import BASELINE, ELEMENTS, RecordKind

NEVER_RECORDED = "never recorded"
"""The missing "element" of a placeholder: its own event was never recorded."""
PAGE = 1000


def requires_elements(policy: ProjectPolicy | None) -> bool:
    """Whether `policy` requires an element of some kind (a policy of conventions alone, or of
    the gates rule alone, does not)."""
    return policy is not None and any(policy.required.values())


def required_of(policy: ProjectPolicy | None) -> dict[RecordKind, tuple[str, ...]]:
    """The elements required per kind: the policy's when it requires any, else the baseline."""
    source = policy.required if policy is not None and requires_elements(policy) else BASELINE
    return {kind: tuple(source.get(kind, ())) for kind in RecordKind}


def _missing(record: RecordFacts, kind: RecordKind) -> list[str]:
    if record.placeholder:
        return [NEVER_RECORDED]
    return [e for e in ELEMENTS[kind] if e not in record.present]


def kind_summary(
    kind: RecordKind, records: Iterable[RecordFacts], required: Sequence[str]
) -> dict[str, Any]:
    """Total, complete and incomplete records of `kind`, and per missing element how often,
    by whom and whether it is required."""
    total = complete = 0
    by_element: dict[str, dict[str, int]] = {}
    for record in records:
        total += 1
        missing = _missing(record, kind)
        who, _ = person({"actor": record.actor, "principal": record.principal})
        for element in missing:
            people = by_element.setdefault(element, {})
            people[who] = people.get(who, 0) + 1
        if not any(e == NEVER_RECORDED or e in required for e in missing):
            complete += 1
    order = [NEVER_RECORDED, *ELEMENTS[kind]]
    return {
        "kind": kind.value,
        "required": list(required),
        "total": total,
        "complete": complete,
        "incomplete": total - complete,
        "missing": [
            {
                "element": element,
                "required": element == NEVER_RECORDED or element in required,
                "count": sum(by_element[element].values()),
                "by": [{"person": p, "count": n} for p, n in sorted(by_element[element].items())],
            }
            for element in order
            if element in by_element
        ],
    }


def audit(
    project: str,
    policy: ProjectPolicy | None,
    records: Mapping[RecordKind, Iterable[RecordFacts]],
    *,
    since: str | None = None,
) -> dict[str, Any]:
    """The whole answer: per kind its summary, and `failed`: every required element some
    record misses (`--check` fails on any)."""
    required = required_of(policy)
    kinds = [kind_summary(k, records.get(k, ()), required[k]) for k in RecordKind]
    failed = [
        {"kind": k["kind"], "element": m["element"], "count": m["count"]}
        for k in kinds
        for m in k["missing"]
        if m["required"]
    ]
    return {
        "project": project,
        "since": since,
        "required_by": "policy" if requires_elements(policy) else "baseline",
        "policy_set_at": policy.set_at if policy is not None else None,
        "require_passed_gates": policy.require_passed_gates if policy is not None else False,
        "kinds": kinds,
        "failed": failed,
    }


def _paged(
    reads: RecordsReads,
    project: str,
    kind: RecordKind,
    scope: Scope,
    since: str | None,
    page: int,
) -> Iterator[RecordFacts]:
    after: str | None = ""
    while after is not None:
        found = reads.records(RecordsAsk(project, kind, since, after, page), scope)
        yield from found.records
        after = found.after


def audit_records(
    reads: RecordsReads,
    project: str,
    scope: Scope,
    *,
    since: str | None = None,
    page: int = PAGE,
) -> dict[str, Any]:
    """The audit of `project`'s records (first seen at or after `since`), read `page` at a
    time. A project with no policy and no record (in the window or not) is not found."""
    policy = reads.policy(project, scope)
    answer = audit(
        project,
        policy,
        {k: _paged(reads, project, k, scope, since, page) for k in RecordKind},
        since=since,
    )
    if policy is None and not any(k["total"] for k in answer["kinds"]):
        ever = any(
            reads.records(RecordsAsk(project, k, first=1), scope).records for k in RecordKind
        )
        if not ever:
            raise NotFoundError(f"project {project} has no records", project=project)
    return answer


def _who(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{b['person']} {b['count']}" for b in entry["by"])


def render_audit(answer: Mapping[str, Any]) -> str:
    """The audit as terminal text: per kind the counts and what is missing, then the check."""
    basis = (
        f"the project's policy (set {answer['policy_set_at'] or '?'})"
        if answer["required_by"] == "policy"
        else "the baseline (no policy set)"
        if answer["policy_set_at"] is None
        else "the baseline (the project's policy requires no element)"
    )
    title = f"Records of {answer['project']}"
    if answer["since"]:
        title += f" first recorded since {answer['since']}"
    lines = [f"{title}, required by {basis}", ""]
    for kind in answer["kinds"]:
        required = ", ".join(kind["required"]) or "nothing"
        lines.append(
            f"{kind['kind']}: {kind['total']} records, {kind['complete']} complete, "
            f"{kind['incomplete']} incomplete (required: {required})"
        )
        for m in kind["missing"]:
            tag = " (required)" if m["required"] else ""
            lines.append(f"  missing {m['element']}{tag}: {m['count']}, by {_who(m)}")
    lines.append("")
    if answer["failed"]:
        what = "; ".join(f"{f['count']} {f['kind']} {f['element']}" for f in answer["failed"])
        lines.append(f"check: FAILED, required elements missing: {what}")
    else:
        lines.append("check: passed, every record holds what is required")
    return "\n".join(lines)
