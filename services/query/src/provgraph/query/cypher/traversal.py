"""Cypher of the bounded traversals: lineage, impact and shortest paths.

Why these do not enumerate paths: each uses a quantified path pattern under a `SHORTEST`
selector. With the start bound and the end free, Neo4j 5 plans `SHORTEST 1` as one
`StatefulShortestPath(All)` operator: a breadth-first search from the start that emits, per
reached node, a single shortest path (its length is the BFS depth). Nodes already reached are
not expanded again, so cycles terminate and the work is linear in the nodes and relationships
within `depth`, not in the number of paths. The quantifier's upper bound cannot be a parameter,
so the depth is written into the text, only ever as an int validated by the reader.
Scope and asOf are inlined into the expansion (`visible` on every stepped-onto node, the rel's
first-seen cut on every step), so a traversal never passes through an unreadable node.
"""

from __future__ import annotations

from provgraph.query.cypher.reads import LINEAGE_RELS, live, rel_visible, visible
from provgraph.query.model import Direction
from provgraph.schemas.graph import Label

_ARROWS = {Direction.UPSTREAM: ("-", "->"), Direction.DOWNSTREAM: ("<-", "-")}


def _bounded(depth: int) -> int:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ValueError(f"depth must be a positive int, got {depth!r}")
    return depth


def _step(direction: Direction, rel: str = "r") -> str:
    """One step of the quantified path pattern, filtered by scope and asOf."""
    left, right = _ARROWS[direction]
    return (
        f"((a){left}[{rel}:{LINEAGE_RELS}]{right}(b:{Label.ENTITY})"
        f" WHERE {rel_visible(rel)} AND {visible('b')})"
    )


def _reach(direction: Direction, depth: int) -> str:
    return (
        f"MATCH p = SHORTEST 1 (root){_step(direction)}{{1,{_bounded(depth)}}}(n)\n"
        "    RETURN n, length(p) AS depth"
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


def _edges(path: str) -> str:
    return (
        f"[r IN relationships({path}) | "
        "{src: startNode(r).id, dst: endNode(r).id, type: type(r), props: properties(r)}]"
    )


def impact(max_depth: int) -> str:
    """Live ModelVersions and Deployments downstream of $id, each with one shortest path."""
    step = _step(Direction.DOWNSTREAM)
    return f"""
MATCH (root:{Label.ENTITY} {{id: $id}})
WHERE {visible("root")}
RETURN COLLECT {{
    MATCH p = SHORTEST 1 (root){step}{{1,{_bounded(max_depth)}}}(n)
    WHERE n <> root AND {live("n")}
      AND ((n:{Label.MODEL_VERSION} AND NOT coalesce(n.status, '') IN $dead_model)
        OR (n:{Label.DEPLOYMENT} AND coalesce(n.status, '') <> $dead_deployment))
    RETURN {{nodes: nodes(p), edges: {_edges("p")}}}
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
    RETURN {{nodes: nodes(p), edges: {_edges("p")}}}
    LIMIT $fetch
}} AS paths
"""
