"""Every Cypher read of the query service: lookups, bounded traversals and the recipes' reads.

Visibility is decided in ONE place, `visible(var)`: the caller's scope and the `asOf` cut. Every
query binds the same three parameters ($all, $projects, $as_of) and applies `visible` to every
node it returns or walks through, in the MATCH itself, so isolation cannot be forgotten by one
query and an unreadable node is never traversed. Labels and relationship types come from the
graph model enums only (never from input); values travel only as parameters.

Why the traversals do not enumerate paths: each uses a quantified path pattern under a
`SHORTEST` selector. With the start bound and the end free, Neo4j 5 plans `SHORTEST 1` as one
`StatefulShortestPath(All)` operator: a breadth-first search from the start that emits, per
reached node, a single shortest path (its length is the BFS depth). Nodes already reached are
not expanded again, so cycles terminate and the work is linear in the nodes and relationships
within `depth`, not in the number of paths. The quantifier's upper bound cannot be a parameter,
so the depth is written into the text, only ever as an int checked by `_bounded`.
"""

from __future__ import annotations

from provgraph.query.read.model import Direction
from provgraph.schemas.graph import APPLIED_EVENT_LABEL, TOUCHED_REL, Label, Rel
from provgraph.schemas.storage import DELETED_AT, FIRST_SEEN_AT, PROJECT

LINEAGE_RELS = "|".join(rel.value for rel in Rel)
"""Every lineage relationship type, named explicitly so bookkeeping (TOUCHED) is never walked."""

ARTIFACT_LABELS = (Label.DATASET_VERSION, Label.CHECKPOINT, Label.MODEL_VERSION)
DERIVATION_DEPTH = 10
"""A derivation chain longer than this is cut (bounded, like every other traversal)."""

_ARROWS = {Direction.UPSTREAM: ("-", "->"), Direction.DOWNSTREAM: ("<-", "-")}


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


# ---- the recipes' reads (reproduce, diff) ---------------------------------------------------


def _kind(var: str) -> str:
    return f"[l IN labels({var}) WHERE l <> '{Label.ENTITY}'][0]"


def _runs_of(var: str, out: str) -> str:
    """The ids of the runs that generated `var`, as a COLLECT subquery."""
    return (
        f"COLLECT {{ MATCH ({var})-[:{Rel.GENERATED_BY}]->({out}:{Label.RUN}:{Label.ENTITY}) "
        f"WHERE {visible(out)} RETURN {out}.id ORDER BY {out}.id }}"
    )


# One node of any lineage type, its producing run(s) and the checkpoint it was exported from.
RECIPE_ARTIFACT = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
RETURN {_kind("n")} AS type, properties(n) AS props, {_runs_of("n", "r")} AS runs,
  COLLECT {{
    MATCH (n)-[:{Rel.EXPORTED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY}) WHERE {visible("c")}
    RETURN properties(c) ORDER BY c.id
  }} AS exported
"""

# A run and everything one step upstream of it that a recipe or a diff needs.
RECIPE_RUN = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {visible("r")}
RETURN properties(r) AS run,
  COLLECT {{
    MATCH (r)-[u:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY}) WHERE {visible("d")}
    RETURN {{role: u.role, id: d.id}} AS input ORDER BY input.role, input.id
  }} AS inputs,
  COLLECT {{
    MATCH (r)-[:{Rel.RAN_IN}]->(e:{Label.ENVIRONMENT}:{Label.ENTITY}) WHERE {visible("e")}
    RETURN properties(e) ORDER BY e.id
  }} AS environments,
  COLLECT {{
    MATCH (r)-[:{Rel.STARTED_FROM}]->(b:{Label.ENTITY})
    WHERE (b:{Label.MODEL_VERSION} OR b:{Label.CHECKPOINT}) AND {visible("b")}
    RETURN {{type: {_kind("b")}, props: properties(b), runs: {_runs_of("b", "br")}}} AS base
    ORDER BY base.props.id
  }} AS bases,
  COLLECT {{
    MATCH (r)-[:{Rel.RESUMED_FROM}]->(c:{Label.CHECKPOINT}:{Label.ENTITY}) WHERE {visible("c")}
    RETURN {{props: properties(c), runs: {_runs_of("c", "cr")}}} AS resume
    ORDER BY resume.props.step, resume.props.id
  }} AS resumes
"""

# Dataset versions and every readable version they were derived from (distinct nodes, bounded
# depth; the quantified path only steps onto readable nodes), with the edges among them.
DERIVATION = f"""
UNWIND $ids AS id
MATCH (d:{Label.DATASET_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {visible("d")}
OPTIONAL MATCH (d)
  (()-[:{Rel.DERIVED_FROM}]->(x:{Label.DATASET_VERSION}:{Label.ENTITY} WHERE {visible("x")}))
  {{1,{DERIVATION_DEPTH}}}
  (u)
WITH collect(DISTINCT d) + collect(DISTINCT u) AS found
UNWIND found AS n
WITH collect(DISTINCT n) AS ns
UNWIND ns AS s
OPTIONAL MATCH (s)-[t:{Rel.DERIVED_FROM}]->(o:{Label.DATASET_VERSION}:{Label.ENTITY})
WHERE o IN ns
WITH ns, collect(
  CASE WHEN o IS NULL THEN null ELSE {{src: s.id, dst: o.id, transform: t.transform}} END
) AS edges
RETURN [n IN ns | properties(n)] AS nodes, edges
"""
