"""Every Cypher query of the projector's writer, in one place (its reads: `graphread`).

Each query takes `UNWIND $rows AS row` and names labels in every MATCH/MERGE, so each MERGE
key is a uniqueness-constraint lookup. Labels and relationship types come from the graph model
enums only (never from event data), so building the text per kind is safe.
"""

from __future__ import annotations

from provgraph.ingest.projection.ownership import CLAIMED_LABELS
from provgraph.schemas.graph import (
    APPLIED_EVENT_LABEL,
    INFERRED,
    METRIC_SERIES_LABEL,
    OFFSET_LABEL,
    TOUCHED_REL,
    Label,
    Rel,
)
from provgraph.schemas.storage import (
    CLAIMED,
    EDGE_VERSION,
    ID,
    PROJECT,
    SERIES_BUCKETS,
    SERIES_NAME,
    SERIES_RUN,
    SERIES_STEPS,
    SERIES_VALUES,
    SERIES_VERSIONS,
    replaced_version_key,
    version_key,
)

# Node upsert: the Cypher twin of `projection.merge.apply_node`. Rows are combined per id
# beforehand, so no row reads another row's write. Version keys are `storage.version_key`.
# A run, checkpoint or evaluation is `held` once claimed (or defined before claims were
# recorded): its project never changes, and a claiming row of another project (`foreign`,
# which the projector's ownership screen keeps out) folds in like a mere reference.
_NODE = """
UNWIND $rows AS row
MERGE (n:{label} {{id: row.id}})
ON CREATE SET n:Entity, n.placeholder = true, n.project = row.project,
              n.first_seen_at = row.first_seen, n.last_event_at = row.last_seen
WITH n, row, {claimable} AND (coalesce(n.{claimed}, false) OR NOT n.placeholder) AS held
WITH n, row, held, held AND row.claims AND n.project <> row.project AS foreign
SET n.project = CASE
      WHEN held THEN n.project
      WHEN row.claims THEN row.project
      WHEN (row.defining AND n.placeholder)
        OR (row.defining = (NOT n.placeholder) AND row.project < n.project) THEN row.project
      ELSE n.project END
SET n.{claimed} = CASE WHEN row.claims AND NOT foreign THEN true ELSE n.{claimed} END,
    n.placeholder = n.placeholder AND NOT (row.defining AND NOT foreign),
    n.first_seen_at = CASE WHEN row.first_seen < n.first_seen_at
                           THEN row.first_seen ELSE n.first_seen_at END,
    n.last_event_at = CASE WHEN row.last_seen > n.last_event_at
                           THEN row.last_seen ELSE n.last_event_at END
FOREACH (k IN [k IN keys(row.lww)
               WHERE NOT foreign AND coalesce(n['{vprefix}' + k], '') < row.lww[k].v] |
    SET n[k] = row.lww[k].value, n['{vprefix}' + k] = row.lww[k].v)
FOREACH (k IN [k IN keys(row.mins) WHERE NOT foreign AND (n[k] IS NULL OR row.mins[k] < n[k])] |
    SET n[k] = row.mins[k])
FOREACH (k IN [k IN keys(row.maxs) WHERE NOT foreign AND (n[k] IS NULL OR row.maxs[k] > n[k])] |
    SET n[k] = row.maxs[k])
"""

# Series upsert: the Cypher twin of `projection.merge.apply_series`, after the batch's nodes.
# Only on a run of the row's project: a run another project claimed keeps no series of theirs.
# A series is four lists in bucket order (`storage.series_lists`); the stored points and the
# row's are joined per bucket, the larger version winning, and the lists set again. Four list
# properties instead of four per point: W1's 336 events (300 series of about 73 kept points)
# written by the writer alone in 0.32 s instead of 0.94 (median of 15 writes each).
_B, _S, _VAL, _VER = (
    f"`{key}`" for key in (SERIES_BUCKETS, SERIES_STEPS, SERIES_VALUES, SERIES_VERSIONS)
)
SERIES = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{{ID}: row.run}})
WHERE r.{PROJECT} = row.project
MERGE (s:{METRIC_SERIES_LABEL} {{{ID}: row.id}})
ON CREATE SET s.{SERIES_RUN} = row.run, s.{SERIES_NAME} = row.name, s.{PROJECT} = row.project
WITH s, row.points AS new
WITH s, COLLECT {{
    CALL (s, new) {{
        UNWIND range(0, size(coalesce(s.{_B}, [])) - 1) AS i
        RETURN s.{_B}[i] AS b, s.{_S}[i] AS step, s.{_VAL}[i] AS value, s.{_VER}[i] AS v
        UNION ALL
        UNWIND range(0, size(new.{_B}) - 1) AS i
        RETURN new.{_B}[i] AS b, new.{_S}[i] AS step, new.{_VAL}[i] AS value, new.{_VER}[i] AS v
    }}
    WITH b, step, value, v ORDER BY b, v DESC
    WITH b, collect([step, value, v])[0] AS won
    RETURN [b] + won AS point ORDER BY b
}} AS merged
SET s.{_B} = [p IN merged | p[0]], s.{_S} = [p IN merged | p[1]],
    s.{_VAL} = [p IN merged | p[2]], s.{_VER} = [p IN merged | p[3]]
"""

# Both relationship upserts: bind the two ends, then (once `r` is found) keep its earliest
# first_seen_at and take the row's properties when its version is newer.
_EDGE_ENDS = """
UNWIND $rows AS row
MATCH (a:{src} {{id: row.src}})
MATCH (b:{dst} {{id: row.dst}})
"""
_EDGE_FOLD = """\
SET r.first_seen_at = CASE WHEN r.first_seen_at IS NULL OR row.first_seen < r.first_seen_at
                           THEN row.first_seen ELSE r.first_seen_at END
FOREACH (_ IN CASE WHEN row.v <> '' AND coalesce(r.`{edge_v}`, '') < row.v THEN [1] ELSE [] END |
    SET r += row.props, r.`{edge_v}` = row.v)
"""

_EDGE = _EDGE_ENDS + "MERGE (a)-[r:{rel}{key}]->(b)\n" + _EDGE_FOLD

# A declared USED relationship: MERGE would also match an inferred one (a pattern's properties
# are a subset of the relationship's), so the declared one is found, or created, beside it.
# A run's USED relationships are declared by its own events only, which one writer folds in
# order (the log is keyed by subject), so the find-then-create does not race.
_DECLARED_USED = (
    _EDGE_ENDS
    + """OPTIONAL MATCH (a)-[found:{rel}{key}]->(b) WHERE found.`{inferred}` IS NULL
WITH a, b, row, count(found) AS found
FOREACH (_ IN CASE WHEN found = 0 THEN [1] ELSE [] END | CREATE (a)-[:{rel}{key}]->(b))
WITH a, b, row
MATCH (a)-[r:{rel}{key}]->(b) WHERE r.`{inferred}` IS NULL
"""
    + _EDGE_FOLD
)

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

# The applied events among `$ids`, with the hash of the payload each stands for ('' for one
# applied before hashes were stored: its copies are taken as duplicates).
APPLIED_IDS = f"""
UNWIND $ids AS id
MATCH (e:{APPLIED_EVENT_LABEL} {{event_id: id}})
RETURN collect([id, coalesce(e.payload_hash, '')]) AS applied
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
    claimable = "true" if label in CLAIMED_LABELS else "false"
    return _NODE.format(
        label=label.value, vprefix=version_key(""), claimable=claimable, claimed=CLAIMED
    )


def edge_upsert(rel: Rel, src: Label, dst: Label, key: tuple[str, ...]) -> str:
    """Merge relationships of one type between bound nodes; `key` props identify them (a
    declared USED one is never an inferred one)."""
    key_text = " {" + ", ".join(f"{k}: row.key.{k}" for k in key) + "}" if key else ""
    query = _DECLARED_USED if rel is Rel.USED and INFERRED not in key else _EDGE
    return query.format(
        rel=rel.value,
        src=src.value,
        dst=dst.value,
        key=key_text,
        edge_v=EDGE_VERSION,
        inferred=INFERRED,
    )


def edge_set_replace(rel: Rel, src: Label, dst: Label) -> str:
    """Replace the `rel` relationships of each source node when the row is newer."""
    vkey = replaced_version_key(rel)
    return _EDGE_SET.format(rel=rel.value, src=src.value, dst=dst.value, vkey=vkey)


# ---- inferred inputs (`projection.resolution`) ---------------------------------------------

# The facts of the datasets to resolve: those named, and those the named runs READ. Each is
# locked first (a property set and removed: nothing stays), in id order, so that two writers
# resolving one dataset take turns and the second reads what the first committed.
RESOLUTION_FACTS = f"""
CALL () {{
    UNWIND $runs AS run_id
    MATCH (:{Label.RUN} {{id: run_id}})-[:{Rel.READS}]->(d:{Label.DATASET})
    RETURN d
  UNION
    UNWIND $datasets AS dataset_id
    MATCH (d:{Label.DATASET} {{id: dataset_id}})
    RETURN d
}}
WITH DISTINCT d
WHERE EXISTS {{ (:{Label.RUN})-[:{Rel.READS}]->(d) }}
WITH d ORDER BY d.id
SET d._v_lock = true
REMOVE d._v_lock
RETURN d.id AS dataset,
       [(v:{Label.DATASET_VERSION})-[:{Rel.VERSION_OF}]->(d) |
        [v.id, v.created_at, [(v)-[:{Rel.GENERATED_BY}]->(p:{Label.RUN}) | p.id]]] AS versions,
       [(r:{Label.RUN})-[:{Rel.READS}]->(d) | [r.id, r.started_at, r.ended_at]] AS reads,
       [(r:{Label.RUN})-[u:{Rel.USED}]->(v:{Label.DATASET_VERSION})-[:{Rel.VERSION_OF}]->(d)
        WHERE u.`{INFERRED}` IS NOT NULL | [r.id, v.id, u.first_seen_at]] AS inferred
"""

DELETE_INFERRED = f"""
UNWIND $rows AS row
MATCH (:{Label.RUN} {{id: row.run}})-[u:{Rel.USED}]->(:{Label.DATASET_VERSION} {{id: row.version}})
WHERE u.`{INFERRED}` IS NOT NULL
DELETE u
"""

MERGE_INFERRED = f"""
UNWIND $rows AS row
MATCH (r:{Label.RUN} {{id: row.run}})
MATCH (v:{Label.DATASET_VERSION} {{id: row.version}})
MERGE (r)-[u:{Rel.USED} {{role: row.role, `{INFERRED}`: row.inferred}}]->(v)
SET u.first_seen_at = row.first_seen
"""
