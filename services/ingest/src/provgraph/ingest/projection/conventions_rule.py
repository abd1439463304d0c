"""The conventions a project's policy enforces (`project.policy.set` v3, `require_names` and
`require_places`), decided from an event's own mutations (no I/O):

- **Names** (`require_names`): a ``run.started``, ``model.version.registered``,
  ``dataset.version.created`` or ``environment.snapshot.recorded`` (its image) whose name
  breaks its kind's naming rule is refused, reason ``name_breaks_rule``, naming the record,
  the rule, why, and the name the rule builds from the record's facts when it can.
- **Places** (`require_places`): a ``checkpoint.saved``, ``dataset.version.created`` or
  ``model.version.registered`` whose URI is a personal path or lies outside the project's
  storage roots is refused, reason ``place_refused``; one at a URI that another job's output
  holds (a run of another experiment; a run outside every experiment is a job of its own) is
  refused, reason ``place_taken``, naming the other output (`taken`: the writers of the URI
  are read from the graph, `discipline.places_wanted`).

The facts a rule names (`schemas.conventions.FACTS`) are read from the same mutations the fold
writes, so ingest, the projector, `replay` and `verify` agree. Which policy is in force is
`discipline.judge`'s business.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from provgraph.ingest.projection.mutations import (
    EdgeUpsert,
    EventMutations,
    NodeUpsert,
    ProjectionError,
)
from provgraph.schemas.conventions import (
    Conventions,
    NamedKind,
    day_of,
    job_of,
    name_problem,
    place_problem,
    render,
)
from provgraph.schemas.graph import Rel

NAMED_BY: dict[str, NamedKind] = {
    "run.started": NamedKind.RUN,
    "model.version.registered": NamedKind.MODEL_VERSION,
    "dataset.version.created": NamedKind.DATASET_VERSION,
    "environment.snapshot.recorded": NamedKind.IMAGE,
}
"""The events that create a named record, and the kind of name they give."""

OUTPUT_URI: dict[str, str] = {
    "checkpoint.saved": "uri",
    "dataset.version.created": "storage_uri",
    "model.version.registered": "uri",
}
"""The events that store an output, and the property holding its URI."""

CONVENTION_EVENTS = frozenset(NAMED_BY) | frozenset(OUTPUT_URI)


class NameBreaksRule(ProjectionError):
    """A new record whose name breaks its project's naming rule, under `require_names`."""

    reason = "name_breaks_rule"

    def __init__(
        self, record: str, kind: NamedKind, rule: str, problem: str, suggestion: str | None
    ) -> None:
        self.record, self.kind, self.rule = record, kind, rule
        self.problem, self.suggestion = problem, suggestion
        hint = f"; name it {suggestion!r}" if suggestion else ""
        super().__init__(
            f"{kind.value} {record}: {problem} (project.policy.set require_names){hint}"
        )


class PlaceRefused(ProjectionError):
    """An output stored out of place (a personal path, or outside the storage roots), under
    `require_places`."""

    reason = "place_refused"

    def __init__(self, record: str, uri: str, problem: str, roots: tuple[str, ...]) -> None:
        self.record, self.uri, self.problem, self.roots = record, uri, problem, roots
        super().__init__(
            f"{record}: {problem} (project.policy.set require_places): store it under "
            f"{' or '.join(roots) if roots else 'a shared location'}"
        )


def _value(node: NodeUpsert, name: str) -> str | None:
    kept = node.lww.get(name)
    return None if kept is None or kept.value is None else str(kept.value)


def _target_key(change: EventMutations, node: NodeUpsert, rel: Rel) -> str | None:
    """The key (the id after its kind and project) of what `node` has a `rel` to."""
    for m in change.mutations:
        if isinstance(m, EdgeUpsert) and m.src == node.id and m.rel == rel:
            return m.dst.split("/", 1)[1] if "/" in m.dst else m.dst.split(":", 1)[-1]
    return None


def named(
    change: EventMutations, node: NodeUpsert
) -> tuple[NamedKind, str | None, dict[str, str | None]] | None:
    """The kind, name and facts of the record `change` creates, if it creates a named one."""
    kind = NAMED_BY.get(change.record.event_type)
    if kind is None:
        return None
    at = change.record.occurred_at
    facts: dict[str, str | None] = {"project": change.record.project, "date": day_of(at)}
    if kind is NamedKind.RUN:
        commit = _value(node, "code_commit")
        facts |= {
            "experiment": _target_key(change, node, Rel.PART_OF),
            "run_number": _value(node, "run_number"),
            "run_id": _value(node, "run_key"),
            "commit": commit[:7] if commit else None,
        }
        return kind, _value(node, "name"), facts
    if kind is NamedKind.MODEL_VERSION:
        facts |= {
            "model": _value(node, "name"),
            "run_id": _target_key(change, node, Rel.GENERATED_BY),
        }
        return kind, _value(node, "version"), facts
    if kind is NamedKind.DATASET_VERSION:
        facts |= {
            "dataset": _value(node, "name"),
            "previous_version": _value(node, "previous_version"),
        }
        return kind, _value(node, "version"), facts
    image, tag = _value(node, "image_name"), _value(node, "image_tag")
    if image is None:
        return None  # a snapshot without an image names none
    facts["environment"] = _value(node, "key")
    return kind, image if tag is None else f"{image}:{tag}", facts


def convention_error(
    change: EventMutations, node: NodeUpsert, conventions: Conventions
) -> ProjectionError | None:
    """The convention `change` breaks under `conventions`, if it is enforced; else None."""
    event_type = change.record.event_type
    if conventions.require_names and event_type in NAMED_BY:
        found = named(change, node)
        template = conventions.template(found[0]) if found is not None else None
        if found is not None and template is not None:
            kind, name, facts = found
            problem = name_problem(template, name, facts)
            if problem is not None:
                return NameBreaksRule(node.id, kind, template, problem, render(template, facts))
    prop = OUTPUT_URI.get(event_type)
    uri = _value(node, prop) if prop is not None and conventions.require_places else None
    if uri is not None:
        roots = conventions.storage_roots
        problem = place_problem(uri, roots)
        if problem is not None:
            return PlaceRefused(node.id, uri, problem, roots)
    return None


# ---- one place, one job ----------------------------------------------------------------------


class PlaceTaken(ProjectionError):
    """An output at a URI another job (a run of another experiment, or another run outside
    every experiment) wrote, under `require_places`."""

    reason = "place_taken"

    def __init__(self, record: str, uri: str, other: str, other_job: str) -> None:
        self.record, self.uri, self.other, self.other_job = record, uri, other, other_job
        super().__init__(
            f"{record}: {uri} was already written by {other} ({other_job}); one URI holds one "
            "job's output (project.policy.set require_places): store it at a URI of its own"
        )


def output_of(change: EventMutations, node: NodeUpsert) -> tuple[str, str | None] | None:
    """The URI an output event stores `node` at and the run that wrote it, if it stores one."""
    prop = OUTPUT_URI.get(change.record.event_type)
    uri = _value(node, prop) if prop is not None else None
    if uri is None:
        return None
    runs = [
        m.dst
        for m in change.mutations
        if isinstance(m, EdgeUpsert) and m.src == node.id and m.rel == Rel.GENERATED_BY
    ]
    return uri, runs[0] if runs else None


def experiment_of(change: EventMutations, node: NodeUpsert) -> str | None:
    """The experiment a ``run.started`` puts its run in, if it names one."""
    for m in change.mutations:
        if isinstance(m, EdgeUpsert) and m.src == node.id and m.rel == Rel.PART_OF:
            return m.dst
    return None


def job(record: str, run: str | None, experiments: Mapping[str, str | None]) -> str:
    """`conventions.job_of` the output `record`, its run's experiment read from `experiments`."""
    return job_of(record, run, experiments.get(run) if run is not None else None)


def taken(
    record: str, uri: str, job: str, writers: Mapping[str, Sequence[tuple[str, str]]]
) -> PlaceTaken | None:
    """`PlaceTaken` naming the first other job's output at `uri` (`writers`: uri -> (record,
    job) in the order they were recorded), else None; the same record again, or another
    output of the same job, is not a collision."""
    for other, other_job in writers.get(uri, ()):
        if other != record and other_job != job:
            return PlaceTaken(record, uri, other, other_job)
    return None
