"""Marquez's keys of provgraph nodes (pure): ids, namespaces, names, search patterns.

Marquez names a dataset `dataset:<namespace>:<name>` and a job `job:<namespace>:<name>`, where
the namespace and the name may hold `:` and `/` (`dataset:s3://lake:tokens/abc`). provgraph's
own dataset and job ids (`dataset:<project>/<name>`, `job:<project>/<name>`) never hold a second
`:`, so the two forms cannot be taken for one another. An OpenLineage-born Dataset or Job keeps
its Marquez id in `marquez_id` (exact match, never parsed back); every other node answers with
its provgraph id.
"""

from __future__ import annotations

import re
from typing import Any

from provgraph.query.read.marquez_ids import MARQUEZ_LABELS
from provgraph.query.read.model import NodeView
from provgraph.schemas.graph import MARQUEZ_ID, Label

_ANSWERED_BY_MARQUEZ_ID = frozenset({Label.DATASET.value, Label.JOB.value})


def is_marquez_id(value: str) -> bool:
    """`value` has Marquez's form `dataset|job:<namespace>:<name>` (both parts non-empty)."""
    kind, sep, body = value.partition(":")
    namespace, colon, name = body.partition(":")
    return bool(sep and colon and kind in MARQUEZ_LABELS and namespace and name)


def answer_id(node: NodeView) -> str:
    """The id a Marquez client gets for `node`: its Marquez id when it has one (an
    OpenLineage-born Dataset or Job), else its provgraph id."""
    stored = node.props.get(MARQUEZ_ID)
    if node.type in _ANSWERED_BY_MARQUEZ_ID and isinstance(stored, str) and stored:
        return stored
    return node.id


def namespace_of(node: NodeView) -> str:
    """The Marquez namespace of a node: its OpenLineage namespace, else its project."""
    return str(node.props.get("ol_namespace") or node.project or "")


def name_of(node: NodeView) -> str:
    """The Marquez name of a node: its OpenLineage name, else its name (an experiment's key),
    else its id."""
    props = node.props
    for key in ("ol_name", "name", "key"):
        value = props.get(key)
        if isinstance(value, str) and value:
            return value
    return node.id


def run_key(node: NodeView) -> str:
    """A run's Marquez id: the runId (provgraph's `run:<runId>` without its prefix)."""
    key = node.props.get("run_key")
    return str(key) if key else node.id.removeprefix("run:")


def search_pattern(query: str) -> str:
    """Marquez's search text as a case-insensitive regular expression over names: a substring,
    where `%` stands for any text and `_` for any one character (SQL LIKE's wildcards)."""
    parts = (".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in query.lower())
    return "(?s).*" + "".join(parts) + ".*"


def is_ol_born(node: NodeView) -> bool:
    """The node came from OpenLineage (it keeps its OpenLineage namespace)."""
    return bool(node.props.get("ol_namespace"))


def prop_text(props: Any, key: str) -> str | None:
    """A text property, or None."""
    value = props.get(key)
    return value if isinstance(value, str) and value else None
