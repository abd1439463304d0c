"""Marquez's ids, and the look-up by them that the column walk and the Marquez reader share.

An OpenLineage-born Dataset or Job keeps Marquez's id, `<kind>:<namespace>:<name>`, in its
indexed `marquez_id` (written by the projection). The column walk finds the datasets an input
field names by it (`column_reads.py`), the Marquez API the dataset or job a client names
(`marquez_reads.py`): both build the id and seek the index with the functions below.
"""

from __future__ import annotations

from provgraph.schemas.graph import MARQUEZ_ID, Label

MARQUEZ_LABELS = {"dataset": Label.DATASET, "job": Label.JOB}
"""The kinds of Marquez id, and the label of the node each names."""


def marquez_id(kind: str, namespace: str, name: str) -> str:
    """The Marquez id of a dataset or job, as the projection stores it in `marquez_id`."""
    return f"{kind}:{namespace}:{name}"


def marquez_label(value: str) -> Label | None:
    """The label of the node the Marquez id `value` names (by its kind); None for no kind."""
    return MARQUEZ_LABELS.get(value.split(":", 1)[0])


def with_marquez_id(var: str, label: Label, key: str) -> str:
    """The Cypher pattern of node `var` of `label` whose `marquez_id` is the Cypher expression
    `key` (an index seek)."""
    return f"({var}:{label} {{{MARQUEZ_ID}: {key}}})"
