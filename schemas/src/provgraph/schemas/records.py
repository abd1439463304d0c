"""What a complete record holds: the elements each kind of record can be required to have.

`project.policy.set` names, per kind, the elements a project requires (`ELEMENTS` lists every
one a policy may name); ingest refuses an event that leaves a required element out (422
``record_incomplete``) and the projector does the same by the log's order. `audit-records`
counts, over the graph, how many records of each kind have each element. `BASELINE` is the
least any team should keep: it is what `audit-records --check` holds a project without a
policy to.
"""

from __future__ import annotations

from enum import StrEnum


class RecordKind(StrEnum):
    """The kinds of record a policy can require elements of."""

    RUN = "run"
    DATASET_VERSION = "dataset_version"
    MODEL_VERSION = "model_version"


ELEMENTS: dict[RecordKind, dict[str, str]] = {
    RecordKind.RUN: {
        "experiment": "the experiment the run belongs to (run.started experiment)",
        "run_number": "its number within the experiment (run.started run_number)",
        "code": "the code it ran: repository and commit (run.started code)",
        "inputs": "at least one input dataset version (run.started inputs)",
        "environment": "the environment snapshot it ran in (run.started environment)",
        "conclusion": "what was learnt (run.completed conclusion)",
    },
    RecordKind.DATASET_VERSION: {
        "source": "where the raw data came from (dataset.version.created source)",
        "licence": "the source's licence (dataset.version.created source.licence)",
    },
    RecordKind.MODEL_VERSION: {
        "evaluation": "an evaluation recorded before the version is approved "
        "(model.version.evaluated before model.version.status.changed to approved)",
    },
}
"""Every element a policy may require, per kind, with what it means."""

BASELINE: dict[RecordKind, tuple[str, ...]] = {
    RecordKind.RUN: ("experiment", "code", "inputs"),
    RecordKind.DATASET_VERSION: ("source",),
    RecordKind.MODEL_VERSION: (),
}
"""The least a record should hold (data source, experiment settings, model version), whatever
the project's policy."""

REQUIRED_ELEMENTS = "required_elements"
"""The Project node's property holding the policy in force: a JSON object, kind -> the sorted
list of elements required (kinds with none left out)."""

REQUIRE_PASSED_GATES = "require_passed_gates"
"""The Project node's property (boolean): a run may train only on dataset versions whose
quality gates were recorded and all passed."""

POLICY_RECORDS = "policy.records."
"""Prefix of the Project node's policy history: one property per policy event, named by its
log version (``<logged_at>|<event_id>``), holding the whole policy as JSON; the greatest
version is the policy in force."""
