"""The Cypher fragments every reader's queries share: who may see a node, and when it existed.

Visibility is decided in ONE place, `visible(var)`: the caller's scope and the `asOf` cut. Every
read query binds the same three parameters ($all, $projects, $as_of; `convert.scope_params`)
and applies `visible` to every node it returns or walks through, in the MATCH itself, so
isolation cannot be forgotten by one query and an unreadable node is never traversed. Labels
and relationship types come from the graph model enums only (never from input); values travel
only as parameters. Each reader's own queries stand beside it (`graph_cypher.py`,
`marquez_cypher.py`, and in the other `*_reads.py` modules themselves).
"""

from __future__ import annotations

from provgraph.schemas.graph import Label
from provgraph.schemas.storage import DELETED_AT, FIRST_SEEN_AT, PROJECT


def visible(var: str) -> str:
    """The caller may read `var` and it existed at `$as_of` (when given)."""
    return (
        f"(($all OR {var}.{PROJECT} IN $projects)"
        f" AND ($as_of IS NULL OR {var}.{FIRST_SEEN_AT} <= $as_of))"
    )


def rel_visible(var: str) -> str:
    """The relationship existed at `$as_of`; one without a first-seen stamp predates the cut."""
    return f"($as_of IS NULL OR coalesce({var}.{FIRST_SEEN_AT}, '') <= $as_of)"


def live(var: str) -> str:
    """Not (yet) soft-deleted: lists leave deleted nodes out, unless deleted after `$as_of`."""
    deleted = f"{var}.{DELETED_AT}"
    return f"({deleted} IS NULL OR ($as_of IS NOT NULL AND {deleted} > $as_of))"


def kind(var: str) -> str:
    """The lineage type of node `var`: its label other than `Entity`."""
    return f"[l IN labels({var}) WHERE l <> '{Label.ENTITY}'][0]"
