"""Column lineage from OpenLineage `columnLineage` facets: reading the facet of a Dataset node.

An OpenLineage-born Dataset node keeps its latest facet as `column_lineage_json`::

    {"fields": {"<output field>": {"inputFields": [{"namespace": .., "name": .., "field": ..,
                "transformations": [{"type": .., "subtype": .., "description": ..}]}],
                "transformationDescription": .., "transformationType": ..}}}

Input fields name datasets by OpenLineage (namespace, name), which the node's `marquez_id`
(`dataset:<namespace>:<name>`, `marquez_ids.py`) finds. The walk over what this reads stands
in `column_walk.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.marquez_ids import marquez_id
from provgraph.query.read.model import NodeView
from provgraph.schemas.graph import MARQUEZ_ID, Label
from provgraph.schemas.storage import decode_json, encode_json

COLUMN_LINEAGE = "column_lineage"
"""The nested property holding the facet (`column_lineage_json`)."""
SCHEMA = "schema"
OL_NAMESPACE, OL_NAME = "ol_namespace", "ol_name"


def column_root(node: NodeView, dataset: NodeView | None) -> NodeView | None:
    """Where a column walk starts: a Dataset as it is, a DatasetVersion's (readable) Dataset;
    any other node is `invalid_argument`."""
    if node.type == Label.DATASET:
        return node
    if node.type == Label.DATASET_VERSION:
        return dataset
    raise InvalidArgumentError(
        f"column lineage starts at a dataset, not a {node.type}", id=node.id, type=node.type
    )


def consumer_keys(keys: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """(namespace, name) pairs as the text the stored facet holds them in (canonical JSON
    strings, quotes included): what `column_reads.COLUMN_CONSUMERS` looks for."""
    return [{"namespace": encode_json(ns), "name": encode_json(name)} for ns, name in keys]


def marquez_dataset_id(namespace: str, name: str) -> str:
    """Marquez's id of an OpenLineage dataset, as the projection stores it in `marquez_id`."""
    return marquez_id("dataset", namespace, name)


@dataclass(frozen=True)
class InputField:
    """One input field of one output field, as the facet says it."""

    namespace: str
    name: str
    field: str
    output: str
    transformation_description: str | None = None
    transformation_type: str | None = None
    transformations: tuple[Mapping[str, Any], ...] = ()

    @property
    def dataset(self) -> str:
        """The Marquez id of the dataset it names."""
        return marquez_dataset_id(self.namespace, self.name)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _input_field(output: str, spec: Mapping[str, Any], raw: Any) -> InputField | None:
    if not isinstance(raw, Mapping):
        return None
    namespace, name, column = (_text(raw.get(k)) for k in ("namespace", "name", "field"))
    if namespace is None or name is None or column is None:
        return None
    steps = tuple(t for t in raw.get("transformations") or () if isinstance(t, Mapping))
    first = steps[0] if steps else {}
    return InputField(
        namespace=namespace,
        name=name,
        field=column,
        output=output,
        # The facet's older per-output description wins; else the first transformation's.
        transformation_description=_text(spec.get("transformationDescription"))
        or _text(first.get("description")),
        transformation_type=_text(spec.get("transformationType")) or _text(first.get("type")),
        transformations=tuple(dict(t) for t in steps),
    )


def facet_inputs(facet: Any) -> tuple[InputField, ...]:
    """Every (output field, input field) pair of a facet, in a stable order; malformed parts
    are left out (an archived facet should not fail an answer)."""
    fields = facet.get("fields") if isinstance(facet, Mapping) else None
    if not isinstance(fields, Mapping):
        return ()
    found: list[InputField] = []
    for output in sorted(k for k in fields if isinstance(k, str)):
        spec = fields[output]
        if not isinstance(spec, Mapping):
            continue
        for raw in spec.get("inputFields") or ():
            parsed = _input_field(output, spec, raw)
            if parsed is not None:
                found.append(parsed)
    return tuple(found)


def field_types(props: Mapping[str, Any]) -> dict[str, str]:
    """{field: type} from the dataset's `schema` facet (empty when absent)."""
    facet = decode_json(props, SCHEMA)
    items = facet.get("fields") if isinstance(facet, Mapping) else None
    types: dict[str, str] = {}
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping) and _text(item.get("name")) and _text(item.get("type")):
            types[str(item["name"])] = str(item["type"])
    return types


@dataclass(frozen=True)
class Source:
    """A Dataset node as the walk reads it."""

    view: NodeView
    inputs: tuple[InputField, ...]
    types: Mapping[str, str]

    @property
    def ol_key(self) -> tuple[str, str] | None:
        """Its OpenLineage (namespace, name), when it has one."""
        namespace, name = (
            _text(self.view.props.get(OL_NAMESPACE)),
            _text(self.view.props.get(OL_NAME)),
        )
        return (namespace, name) if namespace and name else None

    @property
    def marquez_id(self) -> str | None:
        stored = _text(self.view.props.get(MARQUEZ_ID))
        key = self.ol_key
        return stored or (marquez_dataset_id(*key) if key else None)


def source(view: NodeView) -> Source:
    """The walk's reading of a Dataset node: its facet's input fields and its field types."""
    props = view.props
    return Source(view, facet_inputs(decode_json(props, COLUMN_LINEAGE)), field_types(props))
