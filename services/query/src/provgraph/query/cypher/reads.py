"""Every Cypher read of the read model except traversals (those live in `traversal.py`).

Visibility is decided in ONE place, `visible(var)`: the caller's scope and the `asOf` cut.
Every query binds the same three parameters ($all, $projects, $as_of) and uses `visible` for
every node it returns or walks through, so isolation cannot be forgotten by one query.
Labels and relationship types come from the graph model enums only (never from input).
"""

from __future__ import annotations

from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel

LINEAGE_RELS = "|".join(rel.value for rel in Rel)
"""Every lineage relationship type, named explicitly so bookkeeping (TOUCHED) is never walked."""


def visible(var: str) -> str:
    """The caller may read `var` and it existed at `$as_of` (when given)."""
    return (
        f"(($all OR {var}.project IN $projects)"
        f" AND ($as_of IS NULL OR {var}.first_seen_at <= $as_of))"
    )


def rel_visible(var: str) -> str:
    """The relationship existed at `$as_of`; one without a first-seen stamp predates the cut."""
    return f"($as_of IS NULL OR coalesce({var}.first_seen_at, '') <= $as_of)"


def live(var: str) -> str:
    """Not (yet) soft-deleted: lists leave deleted nodes out, unless deleted after `$as_of`."""
    return f"({var}.deleted_at IS NULL OR ($as_of IS NOT NULL AND {var}.deleted_at > $as_of))"


NODES = f"""
UNWIND $ids AS id
MATCH (n:{Label.ENTITY} {{id: id}})
WHERE {visible("n")}
RETURN n
"""


def neighbours(rel: Rel, arrow: tuple[str, str]) -> str:
    """The `rel` neighbours of a batch of nodes; `arrow` is ('-', '->') or ('<-', '-')."""
    left, right = arrow
    return f"""
UNWIND $ids AS id
MATCH (a:{Label.ENTITY} {{id: id}})
WHERE {visible("a")}
MATCH (a){left}[r:{rel}]{right}(b:{Label.ENTITY})
WHERE {visible("b")} AND {rel_visible("r")}
RETURN id, b AS node,
       {{src: startNode(r).id, dst: endNode(r).id, type: type(r), props: properties(r)}} AS edge
ORDER BY id, b.id
"""


def find(label: Label) -> str:
    """One node of `label` by the natural keys given (unset keys are not compared)."""
    return f"""
MATCH (n:{label})
WHERE {visible("n")}
  AND ($project IS NULL OR n.project = $project)
  AND ($name IS NULL OR n.name = $name)
  AND ($version IS NULL OR n.version = $version)
  AND ($number IS NULL OR n.number = $number)
RETURN n
ORDER BY n.deleted_at IS NOT NULL, n.project, n.id
LIMIT 1
"""


def list_nodes(label: Label) -> str:
    """A page of `label` nodes ordered by (first_seen_at, id), after the cursor's position."""
    return f"""
MATCH (n:{label})
WHERE {visible("n")} AND {live("n")}
  AND ($project IS NULL OR n.project = $project)
  AND ($status IS NULL OR n.status = $status)
  AND ($since IS NULL OR n.first_seen_at >= $since)
  AND ($until IS NULL OR n.first_seen_at < $until)
  AND ($param_key IS NULL OR toString(n[$param_key]) = $param_value
       OR ($param_number IS NOT NULL AND n[$param_key] = $param_number))
  AND ($experiment IS NULL OR EXISTS {{
        MATCH (n)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT} {{id: $experiment}})
        WHERE {visible("x")} }})
  AND ($after_at IS NULL OR n.first_seen_at > $after_at
       OR (n.first_seen_at = $after_at AND n.id > $after_id))
RETURN n
ORDER BY n.first_seen_at, n.id
LIMIT $fetch
"""


SEARCH = f"""
MATCH (n:{Label.ENTITY})
WHERE {visible("n")} AND {live("n")}
  AND (toLower(coalesce(n.name, '')) CONTAINS $text OR toLower(n.id) CONTAINS $text)
  AND (size($types) = 0 OR any(label IN labels(n) WHERE label IN $types))
RETURN n
ORDER BY n.id
LIMIT $fetch
"""

# One round trip tells "no such node" (no row) from "no events" (an empty list).
HISTORY = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
RETURN COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE $after_at IS NULL OR e.occurred_at < $after_at
       OR (e.occurred_at = $after_at AND e.event_id < $after_id)
    RETURN e {{.event_id, .event_type, .occurred_at, .producer, .actor, .subject}}
    ORDER BY e.occurred_at DESC, e.event_id DESC
    LIMIT $fetch
}} AS events
"""

ARTIFACT_LABELS = (Label.DATASET_VERSION, Label.CHECKPOINT, Label.MODEL_VERSION)

ARTIFACT = f"""
MATCH (n:{Label.ENTITY})
WHERE ({" OR ".join(f"n:{label}" for label in ARTIFACT_LABELS)})
  AND {visible("n")}
  AND (coalesce(n.storage_uri, n.uri) IN $uris
       OR ($checksum IS NOT NULL AND n.checksum = $checksum))
RETURN n
ORDER BY n.id
LIMIT $fetch
"""
