"""Every Cypher write of the projector, in one place.

Each query takes `UNWIND $rows AS row` and names labels in every MATCH/MERGE, so each MERGE
key is a uniqueness-constraint lookup. Labels and relationship types come from the graph model
enums only (never from event data), so building the text per kind is safe.
"""

from __future__ import annotations

from provgraph.schemas.graph import (
    APPLIED_EVENT_LABEL,
    OFFSET_LABEL,
    TOUCHED_REL,
    Label,
    Rel,
)
from provgraph.schemas.storage import EDGE_VERSION, replaced_version_key, version_key

# Node upsert: the Cypher twin of `projection.merge.apply_node`. Rows are combined per id
# beforehand, so no row reads another row's write. Version keys are `storage.version_key`.
_NODE = """
UNWIND $rows AS row
MERGE (n:{label} {{id: row.id}})
ON CREATE SET n:Entity, n.placeholder = true, n.project = row.project,
              n.first_seen_at = row.first_seen, n.last_event_at = row.last_seen
SET n.project = CASE
      WHEN (row.defining AND n.placeholder)
        OR (row.defining = (NOT n.placeholder) AND row.project < n.project) THEN row.project
      ELSE n.project END
SET n.placeholder = n.placeholder AND NOT row.defining,
    n.first_seen_at = CASE WHEN row.first_seen < n.first_seen_at
                           THEN row.first_seen ELSE n.first_seen_at END,
    n.last_event_at = CASE WHEN row.last_seen > n.last_event_at
                           THEN row.last_seen ELSE n.last_event_at END
FOREACH (k IN [k IN keys(row.lww) WHERE coalesce(n['{vprefix}' + k], '') < row.lww[k].v] |
    SET n[k] = row.lww[k].value, n['{vprefix}' + k] = row.lww[k].v)
FOREACH (k IN [k IN keys(row.mins) WHERE n[k] IS NULL OR row.mins[k] < n[k]] |
    SET n[k] = row.mins[k])
FOREACH (k IN [k IN keys(row.maxs) WHERE n[k] IS NULL OR row.maxs[k] > n[k]] |
    SET n[k] = row.maxs[k])
"""

_EDGE = """
UNWIND $rows AS row
MATCH (a:{src} {{id: row.src}})
MATCH (b:{dst} {{id: row.dst}})
MERGE (a)-[r:{rel}{key}]->(b)
SET r.first_seen_at = CASE WHEN r.first_seen_at IS NULL OR row.first_seen < r.first_seen_at
                           THEN row.first_seen ELSE r.first_seen_at END
FOREACH (_ IN CASE WHEN row.v <> '' AND coalesce(r.`{edge_v}`, '') < row.v THEN [1] ELSE [] END |
    SET r += row.props, r.`{edge_v}` = row.v)
"""

# Replace a whole relationship set when the row's version is newer than the stored one.
_EDGE_SET = """
UNWIND $rows AS row
MATCH (a:{src} {{id: row.src}})
WITH a, row WHERE coalesce(a.`{vkey}`, '') < row.v
SET a.`{vkey}` = row.v
WITH a, row
CALL (a) {{
    MATCH (a)-[old:{rel}]->(:{dst})
    DELETE old
}}
WITH a, row
UNWIND row.targets AS t
MATCH (b:{dst} {{id: t.id}})
MERGE (a)-[r:{rel}]->(b)
SET r += t.props, r.first_seen_at = split(row.v, '|')[0]
"""

APPLIED_IDS = f"""
UNWIND $ids AS id
MATCH (e:{APPLIED_EVENT_LABEL} {{event_id: id}})
RETURN collect(id) AS ids
"""

EVENTS = f"""
UNWIND $rows AS row
MERGE (e:{APPLIED_EVENT_LABEL} {{event_id: row.props.event_id}})
SET e += row.props
WITH e, row
UNWIND row.touched AS node_id
MATCH (n:Entity {{id: node_id}})
MERGE (e)-[:{TOUCHED_REL}]->(n)
"""

# Offsets only move forward: a late writer of an older batch cannot move one back.
OFFSETS = f"""
UNWIND $rows AS row
MERGE (o:{OFFSET_LABEL} {{topic: row.topic, partition: row.partition}})
SET o.offset = CASE WHEN o.offset IS NULL OR row.offset > o.offset
                    THEN row.offset ELSE o.offset END
"""

READ_OFFSETS = f"""
MATCH (o:{OFFSET_LABEL} {{topic: $topic}})
RETURN o.partition AS partition, o.offset AS offset
"""


def node_upsert(label: Label) -> str:
    """Merge nodes of one label and fold their properties."""
    return _NODE.format(label=label.value, vprefix=version_key(""))


def edge_upsert(rel: Rel, src: Label, dst: Label, key: tuple[str, ...]) -> str:
    """Merge relationships of one type between bound nodes; `key` props identify them."""
    key_text = " {" + ", ".join(f"{k}: row.key.{k}" for k in key) + "}" if key else ""
    return _EDGE.format(
        rel=rel.value, src=src.value, dst=dst.value, key=key_text, edge_v=EDGE_VERSION
    )


def edge_set_replace(rel: Rel, src: Label, dst: Label) -> str:
    """Replace the `rel` relationships of each source node when the row is newer."""
    vkey = replaced_version_key(rel)
    return _EDGE_SET.format(rel=rel.value, src=src.value, dst=dst.value, vkey=vkey)
