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

from provgraph.schemas.graph import Label, Rel
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


def passes(var: str) -> str:
    """`var` passes the filters of `model.NodeWhere` bound as `convert.where_params` binds them
    ($project, $experiment, $status, $since, $until, $param_key/$param_value/$param_number,
    $uses); a null filter holds."""
    return f"""(($project IS NULL OR {var}.{PROJECT} = $project)
  AND ($status IS NULL OR {var}.status = $status)
  AND ($since IS NULL OR {var}.{FIRST_SEEN_AT} >= $since)
  AND ($until IS NULL OR {var}.{FIRST_SEEN_AT} < $until)
  AND ($param_key IS NULL OR toString({var}[$param_key]) = $param_value
       OR ($param_number IS NOT NULL AND {var}[$param_key] = $param_number))
  AND ($experiment IS NULL OR EXISTS {{
        MATCH ({var})-[:{Rel.PART_OF}]->(x:{Label.EXPERIMENT} {{id: $experiment}})
        WHERE {visible("x")} }})
  AND ($uses IS NULL
       OR EXISTS {{ MATCH ({var})-[:{Rel.USED}]->(u:{Label.DATASET_VERSION} {{id: $uses}})
                    WHERE {visible("u")} }}
       OR EXISTS {{ MATCH ({var})-[:{Rel.GENERATED_BY}]->(r:{Label.RUN})
                          -[:{Rel.USED}]->(u:{Label.DATASET_VERSION} {{id: $uses}})
                    WHERE {visible("r")} AND {visible("u")} }}))"""
