"""The Cypher of `MarquezReader` (`marquez_reads.py`), the Marquez read API (`http/marquez/`).

A Marquez namespace is a node's OpenLineage namespace, else its project (what was born in
provgraph); its Marquez name the OpenLineage name, else the node's name (an experiment's key).
Jobs are OpenLineage Jobs and provgraph Experiments; their runs are the Runs PART_OF them.
Lists count their readable members (COUNT) and return one page (SKIP/LIMIT), ordered by name.
Every query applies `fragments.visible` to each node it returns or walks through.
"""

from __future__ import annotations

from provgraph.query.read.fragments import live, visible
from provgraph.query.read.marquez_ids import with_marquez_id
from provgraph.schemas.graph import MARQUEZ_ID, Label, Rel
from provgraph.schemas.storage import DELETED_AT, FIRST_SEEN_AT, LAST_EVENT_AT, PROJECT


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
MATCH {with_marquez_id("n", label, "$mid")}
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
