"""The read of a compliance report: the `ComplianceReads` port, and `ComplianceReader`, its
adapter over Neo4j with its Cypher (one round trip): a model version and every dataset version
upstream of it, with where its data came from and whether it was taken down.

Upstream means what made the model: the run that produced it and the checkpoint it was exported
from, that run's inputs and their derivations, the base model or checkpoint it started from and
the checkpoints it resumed from, and so on up each chain, at most `COMPLIANCE_DEPTH` steps. What
depends on a taken-down version downstream is `ReadModel.impact`'s question, not this port's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import node_view, scope_params
from provgraph.query.read.fragments import rel_visible, visible
from provgraph.query.read.model import NodeView, Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import record_of

COMPLIANCE_DEPTH = 40
"""Steps upstream of the model version at most (a base-model chain of ten fine-tunings, each
through its run, its checkpoint and a derived input, fits); a longer chain is cut, and said so."""
COMPLIANCE_LIMIT = 1000
"""Dataset versions answered at most (`truncated` beyond)."""
UPSTREAM_RELS = (
    Rel.EXPORTED_FROM,
    Rel.GENERATED_BY,
    Rel.USED,
    Rel.STARTED_FROM,
    Rel.RESUMED_FROM,
    Rel.DERIVED_FROM,
)
"""The relationships that lead from a model version to its data (never to its environment,
experiment or registry entry)."""
DELETED_REASON = "deleted_reason"
"""Where the projection keeps the reason of `entity.deleted` (`projection/governance.py`)."""
SOURCE = "source"
"""The prefix of a dataset version's source fields (`source_uri`, `source_licence`, ...)."""

_RELS = "|".join(rel.value for rel in UPSTREAM_RELS)
_MADE_FROM = f"{Rel.DERIVED_FROM.value}|{Rel.GENERATED_BY.value}"
_STEP = f"((a)-[r:{_RELS}]->(b:{Label.ENTITY}) WHERE {rel_visible('r')} AND {visible('b')})"

# Breadth-first over distinct nodes (SHORTEST 1 per reached node, as `graph_cypher` explains),
# one step further than the bound: a node found there says the walk was cut.
MODEL_DATA = f"""
MATCH (root:{Label.MODEL_VERSION}:{Label.ENTITY} {{id: $id}})
WHERE {visible("root")}
WITH root, COLLECT {{
    MATCH p = SHORTEST 1 (root){_STEP}{{1,{COMPLIANCE_DEPTH + 1}}}(n)
    RETURN {{node: n, depth: length(p)}} AS reached
}} AS reached
WITH root, any(x IN reached WHERE x.depth > {COMPLIANCE_DEPTH}) AS cut,
  [x IN reached WHERE x.depth <= {COMPLIANCE_DEPTH} AND x.node:{Label.DATASET_VERSION}] AS data
RETURN root, cut OR size(data) > $limit AS truncated, COLLECT {{
    UNWIND data AS x
    WITH x.node AS d, x.depth AS depth ORDER BY d.id LIMIT $limit
    RETURN {{node: d, depth: depth, made_from: EXISTS {{
        MATCH (d)-[m:{_MADE_FROM}]->(o:{Label.ENTITY}) WHERE {rel_visible("m")} AND {visible("o")}
    }}}}
}} AS data
"""


@dataclass(frozen=True)
class UpstreamData:
    """One dataset version upstream of the model version.

    `source` holds the recorded source fields (uri, obtained_by, licence, compliance_note; only
    those recorded, empty when none was); `made_from` is true when the version was derived from
    another version or produced by a run, whose data is then upstream too; `depth` counts the
    steps from the model version.
    """

    node: NodeView
    source: Mapping[str, Any]
    made_from: bool
    depth: int

    @property
    def deleted_reason(self) -> str | None:
        """Why it was taken down (`entity.deleted`), when it was."""
        reason = self.node.props.get(DELETED_REASON)
        return str(reason) if reason is not None else None


@dataclass(frozen=True)
class ModelData:
    """A model version, and the dataset versions upstream of it ordered by id."""

    model: NodeView
    data: tuple[UpstreamData, ...]
    truncated: bool


class ComplianceReads(Protocol):
    """What the compliance report reads, in the caller's `Scope`: an unreadable node is a
    missing one and is never walked through."""

    def model_data(
        self, model_version: str, scope: Scope, *, limit: int = COMPLIANCE_LIMIT
    ) -> ModelData | None:
        """The model version and at most `limit` dataset versions upstream of it, at most
        `COMPLIANCE_DEPTH` steps (`truncated` when either bound cut the answer); None when
        there is no such readable model version."""


class ComplianceReader:
    """`ComplianceReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def model_data(
        self, model_version: str, scope: Scope, *, limit: int = COMPLIANCE_LIMIT
    ) -> ModelData | None:
        """The model version and the dataset versions upstream of it."""
        params = {**scope_params(scope), "id": model_version, "limit": limit}
        records = list(self._session.run(MODEL_DATA, params))
        if not records:
            return None
        record = records[0]
        data = tuple(upstream_data(item) for item in record["data"])
        return ModelData(node_view(record["root"]), data, bool(record["truncated"]))


def upstream_data(item: Mapping[str, Any]) -> UpstreamData:
    """One item of `MODEL_DATA`'s data ({node, depth, made_from}) as an UpstreamData."""
    node = node_view(item["node"])
    return UpstreamData(
        node=node,
        source=record_of(node.props, SOURCE),
        made_from=bool(item["made_from"]),
        depth=int(item["depth"]),
    )
