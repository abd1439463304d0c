"""Around a dataset, as in Marquez, the datasets downstream of it, by their Marquez ids.

provgraph's downstream walk goes from a dataset through the runs that read it to the versions
those runs wrote; each version's Dataset is upstream of the version (`VERSION_OF`), so the walk
alone never reaches it. Marquez's lineage is datasets and jobs, and a client looking
downstream of a source wants the datasets made from it: in the Marquez answer around a Dataset
or a DatasetVersion, every dataset version is shown with its Dataset, one step past the
version. One read for all of them, in the caller's scope (`ReadModel.datasets_by_key`).
"""

from __future__ import annotations

from dataclasses import replace

from provgraph.query.read.model import EdgeView, Lineage, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.schemas import dataset_id, parse_id
from provgraph.schemas.graph import Label, Rel

DATASET_TYPES = frozenset({Label.DATASET.value, Label.DATASET_VERSION.value})
"""Roots whose Marquez answer shows the Dataset of each dataset version in it."""


def _dataset_of(version: str) -> str:
    project, name, _label = parse_id(version).parts
    return dataset_id(project, name)


def around_dataset(lineage: Lineage, reader: ReadModel, scope: Scope) -> Lineage:
    """`lineage` plus the readable Dataset of each DatasetVersion in it that it lacks, at the
    version's depth plus one, with the `VERSION_OF` between them."""
    members = (lineage.root, *lineage.nodes)
    known = {node.id for node in members}
    versions = {n.id: _dataset_of(n.id) for n in members if n.type == Label.DATASET_VERSION}
    wanted = sorted(set(versions.values()) - known)
    if not wanted:
        return lineage
    found = {node.id: node for node in reader.datasets_by_key(wanted, scope) if node is not None}
    depths = dict(lineage.depths)
    edges = []
    for version, dataset in sorted(versions.items()):
        if dataset in found:
            reached = depths.get(version, 0) + 1
            depths[dataset] = min(depths.get(dataset, reached), reached)
            edges.append(EdgeView(version, dataset, Rel.VERSION_OF.value))
    added = tuple(found[d] for d in wanted if d in found)
    return replace(
        lineage, nodes=(*lineage.nodes, *added), depths=depths, edges=(*lineage.edges, *edges)
    )
