"""The Cypher of `GraphReader` (`reader.py`): lookups, history and the bounded traversals.

Every query applies `fragments.visible` to each node it returns or walks through (see
`fragments.py`).

Why the traversals do not enumerate paths: each uses a quantified path pattern under a
`SHORTEST` selector. With the start bound and the end free, Neo4j 5 plans `SHORTEST 1` as one
`StatefulShortestPath(All)` operator: a breadth-first search from the start that emits, per
reached node, a single shortest path (its length is the BFS depth). Nodes already reached are
not expanded again, so cycles terminate and the work is linear in the nodes and relationships
within `depth`, not in the number of paths. The quantifier's upper bound cannot be a parameter,
so the depth is written into the text, only ever as an int checked by `_bounded`.
"""

from __future__ import annotations

from provgraph.query.read.fragments import live, passes, rel_visible, visible
from provgraph.query.read.model import Direction
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel
from provgraph.schemas.storage import PROJECT

LINEAGE_RELS = "|".join(rel.value for rel in Rel)
"""Every lineage relationship type, named explicitly so bookkeeping (TOUCHED) is never walked."""

ARTIFACT_LABELS = (Label.DATASET_VERSION, Label.CHECKPOINT, Label.MODEL_VERSION)

_ARROWS = {Direction.UPSTREAM: ("-", "->"), Direction.DOWNSTREAM: ("<-", "-")}


def _edge(rel: str) -> str:
    """A relationship as {src, dst, type, props}: src is its derived end."""
    return (
        f"{{src: startNode({rel}).id, dst: endNode({rel}).id, "
        f"type: type({rel}), props: properties({rel})}}"
    )


def _bounded(depth: int) -> int:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"depth must be a positive int, got {depth!r}")
    return depth


# ---- lookups --------------------------------------------------------------------------------

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
RETURN id, b AS node, {_edge("r")} AS edge
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
    """A page of `label` nodes passing the filters, ordered by (first_seen_at, id), after the
    cursor's position."""
    return f"""
MATCH (n:{label})
WHERE {visible("n")} AND {live("n")} AND {passes("n")}
  AND ($after_at IS NULL OR n.first_seen_at > $after_at
       OR (n.first_seen_at = $after_at AND n.id > $after_id))
RETURN n
ORDER BY n.first_seen_at, n.id
LIMIT $fetch
"""


SEARCH = f"""
MATCH (n:{Label.ENTITY})
WHERE {visible("n")} AND {live("n")} AND {passes("n")}
  AND (toLower(coalesce(n.name, '')) CONTAINS $text OR toLower(n.id) CONTAINS $text)
  AND (size($types) = 0 OR any(label IN labels(n) WHERE label IN $types))
RETURN n
ORDER BY n.id
LIMIT $fetch
"""

# The projects of the nodes the caller may read (a project's access grants are a node of it);
# token holders are bookkeeping of the system project, not a project's content.
PROJECTS = f"""
MATCH (n:{Label.ENTITY})
WHERE n.{PROJECT} IS NOT NULL AND NOT n:{Label.PRINCIPAL} AND {visible("n")}
RETURN DISTINCT n.{PROJECT} AS project
ORDER BY project
"""

# One round trip tells "no such node" (no row) from "no events" (an empty list).
# A readable node may have been touched by events of projects the caller cannot read (another
# project's run used this dataset): those events, their subjects and actors are left out.
HISTORY = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
RETURN COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE ($all OR e.{PROJECT} IN $projects)
      AND ($after_at IS NULL OR e.occurred_at < $after_at
           OR (e.occurred_at = $after_at AND e.event_id < $after_id))
    RETURN e {{.event_id, .event_type, .occurred_at, .producer, .actor, .subject, .{PROJECT},
              .principal, .logged_at}}
    ORDER BY e.occurred_at DESC, e.event_id DESC
    LIMIT $fetch
}} AS events
"""

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

# ---- traversals -----------------------------------------------------------------------------


def _step(direction: Direction, rel: str = "r") -> str:
    """One step of the quantified path pattern, filtered by scope and asOf."""
    left, right = _ARROWS[direction]
    return (
        f"((a){left}[{rel}:{LINEAGE_RELS}]{right}(b:{Label.ENTITY})"
        f" WHERE {rel_visible(rel)} AND {visible('b')})"
    )


_TO_VERSIONS = (
    f"((x)<-[v:{Rel.VERSION_OF}]-(y:{Label.DATASET_VERSION}:{Label.ENTITY})"
    f" WHERE x:{Label.DATASET} AND {rel_visible('v')} AND {visible('y')}){{0,1}}"
)
"""Upstream, a Dataset first steps to its versions: what made a dataset is what made them."""


def _reach(direction: Direction, depth: int) -> str:
    if direction is Direction.DOWNSTREAM:  # a dataset's versions are one step downstream
        return (
            f"MATCH p = SHORTEST 1 (root){_step(direction)}{{1,{_bounded(depth)}}}(n)\n"
            "    RETURN n, length(p) AS depth"
        )
    return (
        f"MATCH p = SHORTEST 1 (root){_TO_VERSIONS}(s){_step(direction)}"
        f"{{0,{_bounded(depth)}}}(n)\n"
        f"    WITH n, length(p) AS depth WHERE depth <= {_bounded(depth)}\n"
        "    RETURN n, depth"
    )


def lineage(direction: Direction, depth: int) -> str:
    """Distinct nodes within `depth` of $id (BOTH = union of both directions), their BFS depth,
    at most $limit of them after the $types filter (fetching one more tells truncation), and
    the lineage relationships among the kept nodes and the root."""
    ways = (
        [Direction.UPSTREAM, Direction.DOWNSTREAM] if direction is Direction.BOTH else [direction]
    )
    union = "\n    UNION ALL\n    ".join(_reach(way, depth) for way in ways)
    return f"""
MATCH (root:{Label.ENTITY} {{id: $id}})
WHERE {visible("root")}
WITH root, COLLECT {{
    CALL (root) {{
    {union}
    }}
    WITH n, min(depth) AS depth
    WHERE n <> root AND (size($types) = 0 OR any(label IN labels(n) WHERE label IN $types))
    RETURN {{node: n, depth: depth}}
    ORDER BY depth, n.id
    LIMIT $fetch
}} AS reached
WITH root, reached[0..$limit] AS kept, size(reached) > $limit AS truncated
WITH root, kept, truncated, [root] + [x IN kept | x.node] AS members
RETURN root, kept, truncated, COLLECT {{
    UNWIND members AS a
    MATCH (a)-[r:{LINEAGE_RELS}]->(b)
    WHERE b IN members AND {rel_visible("r")}
    RETURN {{src: a.id, dst: b.id, type: type(r), props: properties(r)}}
}} AS edges
"""


def _path(path: str) -> str:
    return f"{{nodes: nodes({path}), edges: [r IN relationships({path}) | {_edge('r')}]}}"


def impact(max_depth: int) -> str:
    """Live ModelVersions and Deployments downstream of $id, each with one shortest path."""
    return f"""
MATCH (root:{Label.ENTITY} {{id: $id}})
WHERE {visible("root")}
RETURN COLLECT {{
    MATCH p = SHORTEST 1 (root){_step(Direction.DOWNSTREAM)}{{1,{_bounded(max_depth)}}}(n)
    WHERE n <> root AND {live("n")}
      AND ((n:{Label.MODEL_VERSION} AND NOT coalesce(n.status, '') IN $dead_model)
        OR (n:{Label.DEPLOYMENT} AND coalesce(n.status, '') <> $dead_deployment))
    RETURN {_path("p")}
    ORDER BY length(p), n.id
}} AS items
"""


def paths(max_depth: int) -> str:
    """Every shortest path between $src and $dst over lineage relationships, either way."""
    step = (
        f"((a)-[r:{LINEAGE_RELS}]-(b:{Label.ENTITY}) WHERE {rel_visible('r')} AND {visible('b')})"
    )
    return f"""
MATCH (src:{Label.ENTITY} {{id: $src}}) WHERE {visible("src")}
MATCH (dst:{Label.ENTITY} {{id: $dst}}) WHERE {visible("dst")}
RETURN COLLECT {{
    MATCH p = ALL SHORTEST (src){step}{{1,{_bounded(max_depth)}}}(dst)
    WITH p ORDER BY [x IN nodes(p) | x.id] LIMIT $fetch  // the same paths, in the same order
    RETURN {_path("p")}
}} AS paths
"""
