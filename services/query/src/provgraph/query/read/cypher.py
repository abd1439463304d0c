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
from provgraph.schemas.graph import (
    APPLIED_EVENT_LABEL,
    MARQUEZ_ID,
    METRIC_SERIES_LABEL,
    TOUCHED_REL,
    Label,
    Rel,
)
from provgraph.schemas.storage import (
    DELETED_AT,
    FIRST_SEEN_AT,
    INTERNAL_PREFIX,
    LAST_EVENT_AT,
    PROJECT,
    SERIES_NAME,
    SERIES_RUN,
    json_key,
)

LINEAGE_RELS = "|".join(rel.value for rel in Rel)
"""Every lineage relationship type, named explicitly so bookkeeping (TOUCHED) is never walked."""

COLUMN_LINEAGE_JSON = json_key("column_lineage")
"""Where an OpenLineage-born Dataset keeps its latest `columnLineage` facet."""

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
  AND ($project IS NULL OR n.{PROJECT} = $project)
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


def _compared_run(r: str) -> str:
    """A run of `compare` and what is one step upstream of it (pattern comprehensions: one
    row per query whatever the number of runs, every neighbour visible)."""
    return f"""{{run: properties({r}),
  experiment: head([({r})-[:{Rel.PART_OF}]->(cx:{Label.EXPERIMENT}:{Label.ENTITY})
    WHERE {visible("cx")} | cx.id]),
  inputs: [({r})-[cu:{Rel.USED}]->(cd:{Label.DATASET_VERSION}:{Label.ENTITY})
    WHERE {visible("cd")} | {{role: cu.role, id: cd.id}}],
  environments: [({r})-[:{Rel.RAN_IN}]->(ce:{Label.ENVIRONMENT}:{Label.ENTITY})
    WHERE {visible("ce")} | properties(ce)],
  bases: [({r})-[:{Rel.STARTED_FROM}]->(cb:{Label.ENTITY})
    WHERE (cb:{Label.MODEL_VERSION} OR cb:{Label.CHECKPOINT}) AND {visible("cb")}
    | {{id: cb.id, type: {_kind("cb")}}}],
  resumes: [({r})-[:{Rel.RESUMED_FROM}]->(cc:{Label.CHECKPOINT}:{Label.ENTITY})
    WHERE {visible("cc")} | {{id: cc.id, step: cc.step,
      run: head([(cc)-[:{Rel.GENERATED_BY}]->(cr:{Label.RUN}:{Label.ENTITY})
        WHERE {visible("cr")} | cr.id])}}]
}}"""


# The runs of `compare`: the live runs of experiment $experiment (the $limit highest numbers)
# and the runs named in $ids, each with its upstream; `member_count` counts the experiment's.
COMPARE_RUNS = f"""
OPTIONAL MATCH (x:{Label.EXPERIMENT}:{Label.ENTITY} {{id: $experiment}})
WHERE {visible("x")}
WITH x,
  COLLECT {{
    MATCH (x)<-[:{Rel.PART_OF}]-(r:{Label.RUN}:{Label.ENTITY})
    WHERE {visible("r")} AND {live("r")}
    RETURN r ORDER BY coalesce(r.run_number, -1) DESC,
      coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id DESC
    LIMIT $limit
  }} AS members,
  COLLECT {{
    MATCH (r:{Label.RUN}:{Label.ENTITY}) WHERE r.id IN $ids AND {visible("r")} RETURN r
  }} AS named
WITH x, members, [r IN named WHERE NOT r IN members] AS extra
RETURN x IS NOT NULL AS experiment_found, size(members) AS member_count,
  [r IN members + extra | {_compared_run("r")}] AS runs
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


# ---- column lineage (OpenLineage `columnLineage` facets, walked in read/columns.py) ----------

# The node asked for, and the dataset a dataset version is a version of.
COLUMN_ROOT = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
OPTIONAL MATCH (n)-[:{Rel.VERSION_OF}]->(d:{Label.DATASET}:{Label.ENTITY})
WHERE {visible("d")}
RETURN n, d
"""

# Datasets (and dataset versions) by provgraph id or by Marquez id `dataset:<ns>:<name>`.
DATASETS_BY_KEY = f"""
UNWIND $keys AS key
CALL (key) {{
    MATCH (d:{Label.DATASET} {{{MARQUEZ_ID}: key}})
    RETURN d
  UNION
    MATCH (d:{Label.ENTITY} {{id: key}})
    WHERE d:{Label.DATASET} OR d:{Label.DATASET_VERSION}
    RETURN d
}}
WITH key, d
WHERE {visible("d")}
RETURN key, d
ORDER BY key, d.id
"""

# Datasets whose latest facet may name one of $keys ({namespace, name}, each as its JSON text,
# quotes included): a text filter, bounded; read/columns.py checks every input field it keeps.
COLUMN_CONSUMERS = f"""
MATCH (d:{Label.DATASET}:{Label.ENTITY})
WHERE d.{COLUMN_LINEAGE_JSON} IS NOT NULL AND {visible("d")}
  AND any(k IN $keys WHERE d.{COLUMN_LINEAGE_JSON} CONTAINS k.namespace
                      AND d.{COLUMN_LINEAGE_JSON} CONTAINS k.name)
RETURN d
ORDER BY d.id
LIMIT $fetch
"""


# ---- the Marquez read API (`http/marquez/`) -------------------------------------------------
# A Marquez namespace is a node's OpenLineage namespace, else its project (what was born in
# provgraph); its Marquez name the OpenLineage name, else the node's name (an experiment's key).
# Jobs are OpenLineage Jobs and provgraph Experiments; their runs are the Runs PART_OF them.
# Lists count their readable members (COUNT) and return one page (SKIP/LIMIT), ordered by name.


def marquez_namespace(var: str) -> str:
    """The Marquez namespace of node `var`."""
    return f"coalesce({var}.ol_namespace, {var}.{PROJECT})"


def marquez_name(var: str) -> str:
    """The Marquez name of node `var`."""
    return f"coalesce({var}.ol_name, {var}.name, {var}.key, {var}.id)"


def _is_job(var: str) -> str:
    return f"({var}:{Label.JOB} OR {var}:{Label.EXPERIMENT})"


def _named(var: str) -> str:
    """`var` is the dataset or job $name of namespace $ns (an OpenLineage-born one by its
    indexed `marquez_id` = $mid; one born in provgraph by project and name)."""
    return (
        f"({var}.{MARQUEZ_ID} = $mid OR ({var}.ol_namespace IS NULL AND {var}.{PROJECT} = $ns"
        f" AND {marquez_name(var)} = $name))"
    )


def _version_order(var: str) -> str:
    return f"coalesce({var}.created_at, {var}.{FIRST_SEEN_AT}) DESC, {var}.id DESC"


def _run_order(var: str) -> str:
    return f"coalesce({var}.started_at, {var}.{FIRST_SEEN_AT}) DESC, {var}.id DESC"


def _run_detail(run: str, tag: str) -> str:
    """A map {run, job, inputs, outputs, reads} of run `run`; `tag` keeps the subqueries'
    variables apart from those of the query around it."""
    j, u, v, d = (f"{tag}_{x}" for x in ("j", "u", "v", "d"))
    version_ref = f"{{version: {v}, dataset: {d}, props: properties({u})}}"
    return f"""{{run: {run},
  job: head(COLLECT {{
    MATCH ({run})-[:{Rel.PART_OF}]->({j}:{Label.ENTITY}) WHERE {_is_job(j)} AND {visible(j)}
    RETURN {j} ORDER BY {j}.id LIMIT 1 }}),
  inputs: COLLECT {{
    MATCH ({run})-[{u}:{Rel.USED}]->({v}:{Label.DATASET_VERSION}:{Label.ENTITY})
          -[:{Rel.VERSION_OF}]->({d}:{Label.DATASET}:{Label.ENTITY})
    WHERE {visible(v)} AND {visible(d)}
    RETURN {version_ref} ORDER BY {v}.id }},
  outputs: COLLECT {{
    MATCH ({run})<-[{u}:{Rel.GENERATED_BY}]-({v}:{Label.DATASET_VERSION}:{Label.ENTITY})
          -[:{Rel.VERSION_OF}]->({d}:{Label.DATASET}:{Label.ENTITY})
    WHERE {visible(v)} AND {visible(d)}
    RETURN {version_ref} ORDER BY {v}.id }},
  reads: COLLECT {{
    MATCH ({run})-[:{Rel.READS}]->({d}:{Label.DATASET}:{Label.ENTITY}) WHERE {visible(d)}
    RETURN {d} ORDER BY {d}.id }}
}}"""


def _current_version(dataset: str, tag: str) -> str:
    v = f"{tag}_v"
    return f"""head(COLLECT {{
    MATCH ({dataset})<-[:{Rel.VERSION_OF}]-({v}:{Label.DATASET_VERSION}:{Label.ENTITY})
    WHERE {visible(v)} AND {live(v)}
    RETURN {v} ORDER BY {_version_order(v)} LIMIT 1 }})"""


def _latest_run(job: str, tag: str) -> str:
    r = f"{tag}_r"
    return f"""head(COLLECT {{
    MATCH ({job})<-[:{Rel.PART_OF}]-({r}:{Label.RUN}:{Label.ENTITY}) WHERE {visible(r)}
    WITH {r} ORDER BY {_run_order(r)} LIMIT 1
    RETURN {_run_detail(r, tag)} }})"""


def marquez_node(label: Label) -> str:
    """The Dataset or Job whose `marquez_id` is $mid (an index seek)."""
    return f"""
MATCH (n:{label} {{{MARQUEZ_ID}: $mid}})
WHERE {visible("n")}
RETURN n.id AS id
ORDER BY n.{DELETED_AT} IS NOT NULL, n.id
LIMIT 1
"""


# A disjunction of labels in WHERE (a union of label scans): `:A|B` cannot be mixed with the
# `:A:B` the subqueries use.
_ANY_MARQUEZ = f"(n:{Label.DATASET} OR n:{Label.JOB} OR n:{Label.EXPERIMENT})"
_ANY_JOB = f"(n:{Label.JOB} OR n:{Label.EXPERIMENT})"

MARQUEZ_NAMESPACES = f"""
MATCH (n)
WHERE {_ANY_MARQUEZ} AND {visible("n")} AND {live("n")}
WITH {marquez_namespace("n")} AS name, n
WHERE $name IS NULL OR name = $name
WITH name, min(n.{FIRST_SEEN_AT}) AS created_at, max(n.{LAST_EVENT_AT}) AS updated_at,
     min(n.{PROJECT}) AS owner
ORDER BY name
WITH collect({{name: name, created_at: created_at, updated_at: updated_at, owner: owner}}) AS found
RETURN size(found) AS total, found[$offset..($offset + $limit)] AS items
"""

_IN_NAMESPACE = f"{marquez_namespace('n')} = $ns AND {visible('n')} AND {live('n')}"

MARQUEZ_DATASETS = f"""
RETURN COUNT {{ MATCH (n:{Label.DATASET}:{Label.ENTITY}) WHERE {_IN_NAMESPACE} }} AS total,
  COLLECT {{
    MATCH (n:{Label.DATASET}:{Label.ENTITY}) WHERE {_IN_NAMESPACE}
    WITH n ORDER BY {marquez_name("n")}, n.id SKIP $offset LIMIT $limit
    RETURN {{dataset: n, current: {_current_version("n", "c")}}}
  }} AS items
"""

MARQUEZ_DATASET = f"""
MATCH (n:{Label.DATASET}:{Label.ENTITY})
WHERE {_named("n")} AND {marquez_namespace("n")} = $ns AND {visible("n")}
WITH n ORDER BY n.{DELETED_AT} IS NOT NULL, n.id LIMIT 1
RETURN n AS dataset, {_current_version("n", "c")} AS current
"""


def _version_detail(version: str, dataset: str, tag: str) -> str:
    r = f"{tag}_r"
    created_by = f"""head(COLLECT {{
    MATCH ({version})-[:{Rel.GENERATED_BY}]->({r}:{Label.RUN}:{Label.ENTITY}) WHERE {visible(r)}
    WITH {r} ORDER BY {r}.id LIMIT 1
    RETURN {_run_detail(r, tag)} }})"""
    return f"{{version: {version}, dataset: {dataset}, created_by: {created_by}}}"


_VERSIONS_OF = (
    f"(n)<-[:{Rel.VERSION_OF}]-(v:{Label.DATASET_VERSION}:{Label.ENTITY}) "
    f"WHERE {visible('v')} AND {live('v')}"
)

MARQUEZ_DATASET_VERSIONS = f"""
MATCH (n:{Label.DATASET}:{Label.ENTITY})
WHERE {_named("n")} AND {marquez_namespace("n")} = $ns AND {visible("n")}
WITH n ORDER BY n.{DELETED_AT} IS NOT NULL, n.id LIMIT 1
RETURN COUNT {{ MATCH {_VERSIONS_OF} }} AS total,
  COLLECT {{
    MATCH {_VERSIONS_OF}
    WITH n, v ORDER BY {_version_order("v")} SKIP $offset LIMIT $limit
    RETURN {_version_detail("v", "n", "g")}
  }} AS items
"""

MARQUEZ_DATASET_VERSION = f"""
MATCH (n:{Label.DATASET}:{Label.ENTITY})
WHERE {_named("n")} AND {marquez_namespace("n")} = $ns AND {visible("n")}
WITH n ORDER BY n.{DELETED_AT} IS NOT NULL, n.id LIMIT 1
MATCH (n)<-[:{Rel.VERSION_OF}]-(v:{Label.DATASET_VERSION}:{Label.ENTITY} {{version: $version}})
WHERE {visible("v")}
RETURN {_version_detail("v", "n", "g")} AS detail
ORDER BY v.id
LIMIT 1
"""


MARQUEZ_JOBS = f"""
RETURN COUNT {{ MATCH (n) WHERE {_ANY_JOB} AND {_IN_NAMESPACE} }} AS total,
  COLLECT {{
    MATCH (n) WHERE {_ANY_JOB} AND {_IN_NAMESPACE}
    WITH n ORDER BY {marquez_name("n")}, n.id SKIP $offset LIMIT $limit
    RETURN {{job: n, latest_run: {_latest_run("n", "l")}}}
  }} AS items
"""

_THE_JOB = f"""
MATCH (n)
WHERE {_ANY_JOB} AND {_named("n")} AND {marquez_namespace("n")} = $ns AND {visible("n")}
WITH n ORDER BY n.{DELETED_AT} IS NOT NULL, n.id LIMIT 1
"""

MARQUEZ_JOB = f"""{_THE_JOB}
RETURN n AS job, {_latest_run("n", "l")} AS latest_run
"""

_RUNS_OF = f"(n)<-[:{Rel.PART_OF}]-(r:{Label.RUN}:{Label.ENTITY}) WHERE {visible('r')}"

MARQUEZ_JOB_RUNS = f"""{_THE_JOB}
RETURN COUNT {{ MATCH {_RUNS_OF} }} AS total,
  COLLECT {{
    MATCH {_RUNS_OF}
    WITH r ORDER BY {_run_order("r")} SKIP $offset LIMIT $limit
    RETURN {_run_detail("r", "x")}
  }} AS items
"""

MARQUEZ_RUN = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {visible("r")}
RETURN {_run_detail("r", "x")} AS detail
"""

_SEARCHED = (
    f"{visible('n')} AND {live('n')}"
    f" AND (size($kinds) = 0 OR any(label IN labels(n) WHERE label IN $kinds))"
    f" AND toLower({marquez_name('n')}) =~ $pattern"
)

MARQUEZ_SEARCH = f"""
RETURN COUNT {{ MATCH (n) WHERE {_ANY_MARQUEZ} AND {_SEARCHED} }} AS total,
  COLLECT {{
    MATCH (n) WHERE {_ANY_MARQUEZ} AND {_SEARCHED}
    WITH n ORDER BY CASE WHEN $by_update THEN n.{LAST_EVENT_AT} END DESC,
                    {marquez_name("n")}, n.id
    LIMIT $limit
    RETURN n
  }} AS items
"""


# ---- best model version, environment diff, runs with a package (`recipes/best_model.py`,
# `recipes/env_diff.py`) ------------------------------------------------------------------------

ENV_CHAIN_DEPTH = 20
"""A BASED_ON chain longer than this between two snapshots is not looked for."""

# Every live evaluation of the model's live versions that records $metric_key, with the
# evaluation dataset versions it used: one row per evaluation, at most $fetch.
BEST_EVALUATIONS = f"""
MATCH (m:{Label.MODEL}:{Label.ENTITY} {{id: $model}})
WHERE {visible("m")}
RETURN m.id AS model, COLLECT {{
    MATCH (m)<-[:{Rel.VERSION_OF}]-(v:{Label.MODEL_VERSION}:{Label.ENTITY})
          <-[:{Rel.EVALUATED}]-(e:{Label.EVALUATION}:{Label.ENTITY})
    WHERE {visible("v")} AND {live("v")} AND {visible("e")} AND {live("e")}
      AND e[$metric_key] IS NOT NULL
    RETURN {{version: v.id, label: v.version, status: v.status,
             registered_at: coalesce(v.registered_at, v.{FIRST_SEEN_AT}),
             evaluation: e.id, suite: e.suite, suite_version: e.suite_version,
             evaluated_at: coalesce(e.evaluated_at, e.{FIRST_SEEN_AT}),
             value: e[$metric_key],
             datasets: COLLECT {{
                 MATCH (e)-[:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
                 WHERE {visible("d")}
                 RETURN DISTINCT d.id AS dataset ORDER BY dataset }}}} AS row
    ORDER BY row.version, row.evaluation
    LIMIT $fetch
}} AS rows
"""

# Two environment snapshots and the shortest BASED_ON path between them (either way, through
# readable snapshots only), as {nodes, rels}; no path when they are unrelated or the same.
ENV_PAIR = f"""
OPTIONAL MATCH (a:{Label.ENVIRONMENT}:{Label.ENTITY} {{id: $a}}) WHERE {visible("a")}
OPTIONAL MATCH (b:{Label.ENVIRONMENT}:{Label.ENTITY} {{id: $b}}) WHERE {visible("b")}
RETURN properties(a) AS a, properties(b) AS b, COLLECT {{
    MATCH p = SHORTEST 1 (a)
      (()-[r:{Rel.BASED_ON}]-(y:{Label.ENVIRONMENT}:{Label.ENTITY})
       WHERE {rel_visible("r")} AND {visible("y")}){{1,{ENV_CHAIN_DEPTH}}}(b)
    WHERE a <> b
    RETURN {{nodes: [n IN nodes(p) | properties(n)],
             rels: [s IN relationships(p) | {{src: startNode(s).id, dst: endNode(s).id}}]}}
}} AS paths
"""

# The runs that ran in a snapshot recording one of $keys (the flattened `package.<name>`,
# `framework.<name>`... properties), at $version when given, oldest first, at most $fetch.
RUNS_WITH = f"""
MATCH (e:{Label.ENVIRONMENT}:{Label.ENTITY})
WHERE {visible("e")} AND ($project IS NULL OR e.{PROJECT} = $project)
WITH e, [k IN $keys WHERE e[k] IS NOT NULL | {{key: k, version: toString(e[k])}}] AS hits
WHERE size(hits) > 0 AND ($version IS NULL OR any(h IN hits WHERE h.version = $version))
MATCH (r:{Label.RUN}:{Label.ENTITY})-[:{Rel.RAN_IN}]->(e)
WHERE {visible("r")} AND {live("r")}
WITH r, e, hits
ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}), r.id
LIMIT $fetch
RETURN r {{.id, .{PROJECT}, .name, .run_number, .status, .started_at, .ended_at}} AS run,
       e.id AS environment, hits,
       head(COLLECT {{
           MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
           WHERE {visible("x")} RETURN x.id ORDER BY x.id LIMIT 1 }}) AS experiment
"""

# ---- a run's metric series (`read/series_reads.py`) -----------------------------------------

# For each readable run of $ids, its downsampled metric series (those named in $names, or all),
# each as its stored properties without their version stamps. A series is found by its run's
# id (an index), never by a traversal: it is no node of the lineage graph.
RUN_METRIC_SERIES = f"""
UNWIND $ids AS id
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: id}})
WHERE {visible("r")}
RETURN id, COLLECT {{
    MATCH (s:{METRIC_SERIES_LABEL} {{{SERIES_RUN}: id}})
    WHERE $names IS NULL OR s.{SERIES_NAME} IN $names
    RETURN [k IN keys(s) WHERE NOT k STARTS WITH '{INTERNAL_PREFIX}' | [k, s[k]]] AS props
}} AS series
"""

# ---- a model version's feedback (`read/feedback_reads.py`) ----------------------------------

# For each model version of $ids, the readable feedback events that named it, newest first
# (at most $fetch), each with the deployment that recorded it. A deployment keeps only the
# latest metrics and incidents any of its feedback recorded; the version stamp beside each
# (`<occurred_at>|<event_id>`, never answered) tells which event they came from, so an event's
# own values are answered while the deployment still holds them, and null once a later one
# replaced them.
MODEL_FEEDBACK = f"""
UNWIND $ids AS id
MATCH (v:{Label.MODEL_VERSION}:{Label.ENTITY} {{id: id}})
WHERE {visible("v")}
RETURN id, COLLECT {{
    MATCH (e:{APPLIED_EVENT_LABEL} {{event_type: $event_type}})-[:{TOUCHED_REL}]->(v)
    WHERE ($all OR e.{PROJECT} IN $projects) AND ($as_of IS NULL OR e.occurred_at <= $as_of)
    WITH e ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT $fetch
    OPTIONAL MATCH (e)-[:{TOUCHED_REL}]->(d:{Label.DEPLOYMENT}:{Label.ENTITY} {{id: e.subject}})
    WHERE {visible("d")}
    RETURN {{event_id: e.event_id, at: e.occurred_at, actor: e.actor, principal: e.principal,
             deployment: d,
             metrics: CASE WHEN d[$metrics_v] ENDS WITH '|' + e.event_id
                           THEN d[$metrics] END,
             incidents: CASE WHEN d[$incidents_v] ENDS WITH '|' + e.event_id
                             THEN d[$incidents] END}} AS item
    ORDER BY item.at DESC, item.event_id DESC
}} AS feedback
"""

# ---- the digest and the checkpoint advice ---------------------------------------------------

RUN_LIFECYCLE = ("run.started", "run.resumed", "run.completed", "run.failed", "run.aborted")


def _lifecycle(run: str) -> str:
    """The lifecycle events of `run` (readable ones), oldest first, with who and when."""
    return f"""COLLECT {{
        MATCH (ev:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->({run})
        WHERE ev.subject = {run}.id AND ev.event_type IN $lifecycle
          AND ($all OR ev.{PROJECT} IN $projects)
        RETURN ev {{type: ev.event_type, at: ev.occurred_at, .actor, .principal}}
        ORDER BY ev.occurred_at, ev.event_id }}"""


# Runs of $asked projects started, ended or resumed in [$since, $until), or still running
# (latest $limit), and the dataset versions, model versions and deployments events recorded
# in the window ($limit), in one round trip.
DIGEST = f"""
RETURN COLLECT {{
    MATCH (r:{Label.RUN}:{Label.ENTITY})
    WHERE r.{PROJECT} IN $asked AND {visible("r")} AND {live("r")}
      AND coalesce(r.started_at, r.{FIRST_SEEN_AT}) < $until
      AND (r.status = 'running' OR r.started_at >= $since OR r.ended_at >= $since
           OR r.resumed_at >= $since)
    WITH r ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id LIMIT $limit
    RETURN r {{.id, .{PROJECT}, .name, .run_number, .status, .started_at, .ended_at,
               .{LAST_EVENT_AT}, .conclusion, .error_type, .error_message, .abort_reason,
               resources: r.resources_json,
               experiment: head(COLLECT {{
                   MATCH (r)-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT}:{Label.ENTITY})
                   WHERE {visible("x")} RETURN x {{.id, .key}} ORDER BY x.id LIMIT 1 }}),
               lifecycle: {_lifecycle("r")}}} AS run
}} AS runs, COLLECT {{
    MATCH (n:{Label.ENTITY})
    WHERE n.{PROJECT} IN $asked AND {visible("n")} AND {live("n")}
      AND (n:{Label.DATASET_VERSION} OR n:{Label.MODEL_VERSION} OR n:{Label.DEPLOYMENT})
      AND n.{LAST_EVENT_AT} >= $since
    MATCH (e:{APPLIED_EVENT_LABEL})-[:{TOUCHED_REL}]->(n)
    WHERE e.subject = n.id AND e.event_type IN $item_types
      AND e.occurred_at >= $since AND e.occurred_at < $until
      AND ($all OR e.{PROJECT} IN $projects)
    WITH e, n ORDER BY e.occurred_at, e.event_id LIMIT $limit
    RETURN {{event_type: e.event_type, at: e.occurred_at, actor: e.actor,
             principal: e.principal,
             node: n {{.id, .name, .version, .status, .feedback_model_version}},
             status_at: [k IN keys(n) WHERE k STARTS WITH 'status_at.'
                         | [substring(k, 10), n[k]]]}} AS item
}} AS items
"""

_ADVICE_RUNS = {
    "run": f"MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $target}})",
    "experiment": (
        f"MATCH (:{Label.EXPERIMENT}:{Label.ENTITY} {{id: $target}})"
        f"<-[:{Rel.PART_OF}]-(r:{Label.RUN}:{Label.ENTITY})"
    ),
    "project": f"MATCH (r:{Label.RUN}:{Label.ENTITY}) WHERE r.{PROJECT} = $target WITH r",
}


def checkpoint_runs(kind: str) -> str:
    """The runs the checkpoint advice reads: one run, an experiment's or a project's (the
    latest $limit), each with its lifecycle, its checkpoints (the first $checkpoints) and the
    runs resumed from them; `found` says whether the run or experiment is readable."""
    return f"""
OPTIONAL MATCH (t:{Label.ENTITY} {{id: $target}}) WHERE {visible("t")}
RETURN t IS NOT NULL AS found, COLLECT {{
    {_ADVICE_RUNS[kind]}
    WHERE {visible("r")} AND {live("r")}
    WITH r ORDER BY coalesce(r.started_at, r.{FIRST_SEEN_AT}) DESC, r.id LIMIT $limit
    RETURN r {{.id, .name, .run_number, .status, .started_at, .ended_at, .{LAST_EVENT_AT},
               resources: r.resources_json,
               lifecycle: {_lifecycle("r")},
               checkpoints: COLLECT {{
                   MATCH (c:{Label.CHECKPOINT}:{Label.ENTITY})-[:{Rel.GENERATED_BY}]->(r)
                   WHERE {visible("c")}
                   RETURN c {{.id, .step, .saved_at, .save_seconds}}
                   ORDER BY c.saved_at, c.id LIMIT $checkpoints }},
               resumed_by: COLLECT {{
                   MATCH (r)<-[:{Rel.GENERATED_BY}]-(:{Label.CHECKPOINT}:{Label.ENTITY})
                         <-[:{Rel.RESUMED_FROM}]-(n:{Label.RUN}:{Label.ENTITY})
                   WHERE {visible("n")} RETURN DISTINCT n.id AS id ORDER BY id }}}} AS run
}} AS runs
"""
