"""The graph model: labels, relationship types and constraints, shared by writer and readers.

Edges point from the derived thing to what it came from (W3C PROV style):
upstream = follow outgoing edges, downstream = follow incoming edges.
"""

from __future__ import annotations

from enum import StrEnum


class Label(StrEnum):
    """Node labels. Every lineage node also carries ENTITY, whose `id` is unique graph-wide."""

    ENTITY = "Entity"
    DATASET = "Dataset"
    DATASET_VERSION = "DatasetVersion"
    EXPERIMENT = "Experiment"
    RUN = "Run"
    CHECKPOINT = "Checkpoint"
    MODEL = "Model"
    MODEL_VERSION = "ModelVersion"
    EVALUATION = "Evaluation"
    DEPLOYMENT = "Deployment"
    ENVIRONMENT = "Environment"
    JOB = "Job"
    PROJECT = "Project"  # access grants of a project (from access.granted / access.revoked)
    PRINCIPAL = "Principal"  # a token holder (from token.issued / token.revoked)


class Rel(StrEnum):
    """Relationship types, each from the derived node to its source."""

    VERSION_OF = "VERSION_OF"
    DERIVED_FROM = "DERIVED_FROM"
    GENERATED_BY = "GENERATED_BY"
    USED = "USED"
    RAN_IN = "RAN_IN"
    STARTED_FROM = "STARTED_FROM"
    RESUMED_FROM = "RESUMED_FROM"
    SCALED_FROM = "SCALED_FROM"  # (Run)-[:SCALED_FROM]->(Run): a scale-up and its pilot
    PART_OF = "PART_OF"
    EXPORTED_FROM = "EXPORTED_FROM"
    EVALUATED = "EVALUATED"
    SERVES = "SERVES"
    BASED_ON = "BASED_ON"
    CHILD_OF = "CHILD_OF"
    # (Run)-[:READS]->(Dataset): the run read some version of the dataset, which one it did not
    # declare (an OpenLineage input without a version facet). The projection infers the
    # version: see INFERRED below.
    READS = "READS"


# Bookkeeping nodes, outside the lineage graph.
# The last applied offset per (topic, partition), written in the same transaction as each batch.
OFFSET_LABEL = "ProjectorOffset"
APPLIED_EVENT_LABEL = "AppliedEvent"  # event ids already folded in (idempotency)
# (:NumberingLock {scope}): one per scope of experiment or run numbers (`Experiment:<project>`,
# `Run:<experiment id>`), merged and locked by the writer's transaction before it gives numbers
# there, so that writers numbering one scope at once take turns. It carries nothing else.
NUMBERING_LOCK_LABEL = "NumberingLock"
# (:AppliedEvent)-[:TOUCHED]->(:Entity): every node an event touched, its way back to the log.
# Not a lineage edge: lineage traversals name their relationship types and never follow it.
TOUCHED_REL = "TOUCHED"
# (:MetricSeries {id, run, name, project}): the downsampled series of one metric a run logged
# (`storage.series_bucket`). Found by its run's id, linked to nothing: no traversal meets it,
# and a run's own properties stay small.
METRIC_SERIES_LABEL = "MetricSeries"

# A USED relationship the projection inferred from a READS, not one an event declared:
# (Run)-[:USED {role: "input", inferred: INFERRED_LATEST_AT_RUN_START}]->(DatasetVersion), to
# the latest version of the dataset created at or before the run's start (else its end).
# Declared USED relationships never carry `inferred`.
INFERRED = "inferred"
INFERRED_LATEST_AT_RUN_START = "latest_version_at_run_start"
# The Marquez-style id of an OpenLineage-born Dataset or Job node: `dataset:<ol namespace>:<ol
# name>` or `job:<ol namespace>:<ol name>`. Indexed, not unique: several OpenLineage names may
# map to one node (two namespaces mapped to one project), the last writer's is kept.
MARQUEZ_ID = "marquez_id"

LINEAGE_LABELS: tuple[Label, ...] = tuple(label for label in Label if label is not Label.ENTITY)


def _unique(label: str, *props: str) -> str:
    name = f"{label.lower()}_{'_'.join(props)}_unique"
    keys = ", ".join(f"n.{prop}" for prop in props)
    target = keys if len(props) == 1 else f"({keys})"
    return f"CREATE CONSTRAINT {name} IF NOT EXISTS FOR (n:{label}) REQUIRE {target} IS UNIQUE"


def _index(label: str, prop: str) -> str:
    return f"CREATE INDEX {label.lower()}_{prop} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})"


LESSONS_INDEX = "lessons"
"""The full-text index (Neo4j's own, Lucene) over what people wrote down: `provgraph search`."""
LESSONS_ANALYZER = "english"
"""Lucene's English analyser: English stop words left out, words stemmed (`diverged` finds
`diverge`, `memories` finds `memory`)."""
LESSON_FIELDS: dict[str, tuple[str, ...]] = {
    Label.EXPERIMENT: ("goal", "description"),
    Label.RUN: ("conclusion", "error_message", "abort_reason"),
    Label.DATASET: ("description",),
    Label.DATASET_VERSION: ("change_note",),
    Label.MODEL_VERSION: ("description",),
    Label.DEPLOYMENT: ("feedback_incidents_json",),
}
"""The properties the lessons index holds, by label: goals, conclusions, error messages and
abort reasons, descriptions, change notes, and production feedback (incidents)."""


def _lessons_index() -> str:
    labels = "|".join(LESSON_FIELDS)
    props = sorted({p for fields in LESSON_FIELDS.values() for p in fields})
    keys = ", ".join(f"n.{p}" for p in props)
    return (
        f"CREATE FULLTEXT INDEX {LESSONS_INDEX} IF NOT EXISTS FOR (n:{labels}) ON EACH [{keys}] "
        f"OPTIONS {{indexConfig: {{`fulltext.analyzer`: '{LESSONS_ANALYZER}'}}}}"
    )


def schema_statements() -> list[str]:
    """Every constraint and index, idempotent (IF NOT EXISTS): apply them in any order, any time.

    Each MERGE key is backed by a uniqueness constraint, so MERGE is an index lookup.
    """
    statements = [_unique(label, "id") for label in Label]
    statements += [_index(Label.ENTITY, prop) for prop in ("project", "name", "last_event_at")]
    # Outputs by where they are stored: the place rule's lookup (`project.policy.set`).
    statements += [_index(Label.ENTITY, prop) for prop in ("uri", "storage_uri")]
    statements.append(_index(Label.PRINCIPAL, "token_hash"))  # authentication by hash
    statements += [_index(label, MARQUEZ_ID) for label in (Label.DATASET, Label.JOB)]
    statements.append(_unique(OFFSET_LABEL, "topic", "partition"))
    statements.append(_unique(APPLIED_EVENT_LABEL, "event_id"))
    statements.append(_unique(METRIC_SERIES_LABEL, "id"))
    statements.append(_unique(NUMBERING_LOCK_LABEL, "scope"))  # one lock per scope
    statements.append(_index(METRIC_SERIES_LABEL, "run"))  # a run's series, by its id
    statements.append(_lessons_index())
    return statements
