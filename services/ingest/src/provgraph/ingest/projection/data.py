"""Projection of data and environment events: datasets, their versions, environments."""

from __future__ import annotations

from provgraph.ingest.projection.base import Ctx, copied, projects
from provgraph.ingest.projection.discipline import contents_of, contents_props
from provgraph.ingest.projection.mutations import Mutation
from provgraph.schemas import (
    DatasetRegistered,
    DatasetVersionCreated,
    EnvironmentSnapshotRecorded,
    dataset_id,
)
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.environment import ImageRef
from provgraph.schemas.graph import Rel
from provgraph.schemas.storage import Value, encode_json, format_time, json_key, record, with_json


@projects(DatasetRegistered)
def _dataset_registered(event: DatasetRegistered) -> list[Mutation]:
    props = copied(event.payload, "name", "description", "owner", "modality", "tags")
    return [Ctx(event).node(event.subject, defining=True, props=props)]


# The fields a dataset version stores under their own names.
_VERSION_FIELDS = (
    "name",
    "version",
    "storage_uri",
    "change_note",
    "previous_version",
    "checksum",
    "fingerprint",
    "record_count",
    "size_bytes",
)


def _version_props(p: DatasetVersionCreatedPayload) -> dict[str, Value | None]:
    source = p.source
    props = copied(p, *_VERSION_FIELDS)
    props |= {
        "source_uri": source.uri if source else None,
        "source_obtained_by": source.obtained_by if source else None,
        "source_licence": source.licence if source else None,
        "source_compliance_note": source.compliance_note if source else None,
    }
    if p.cleaning_rules:
        rules = [r.model_dump(mode="json") for r in p.cleaning_rules]
        props[json_key("cleaning_rules")] = encode_json(rules)
        props["cleaning_rule_names"] = tuple(r.name for r in p.cleaning_rules)
    if p.split is not None:
        props.update(
            with_json("split", p.split.model_dump(mode="json", exclude_none=True), "split")
        )
    if p.quality_gates is not None:
        gates = p.quality_gates.model_dump(mode="json", exclude_none=True)
        props.update(with_json("quality_gates", gates, "quality"))
    return props


@projects(DatasetVersionCreated)
def _dataset_version_created(event: DatasetVersionCreated) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    out: list[Mutation] = [
        ctx.node(me, defining=True, props=_version_props(p), mins={"created_at": ctx.time})
    ]
    out += ctx.linked(me, Rel.VERSION_OF, dataset_id(event.project, p.name))
    out += ctx.linked(me, Rel.GENERATED_BY, p.produced_by_run)
    for d in p.derived_from:
        out.append(ctx.ref(d.dataset_version))
        props = {"transform": d.transform, "weight": d.weight}
        out.append(ctx.edge(me, Rel.DERIVED_FROM, d.dataset_version, props=props))
    return out


def _image(prefix: str, image: ImageRef | None) -> dict[str, Value | None]:
    if image is None:
        return {}
    return record(prefix, {"name": image.name, "tag": image.tag, "digest": image.digest})


@projects(EnvironmentSnapshotRecorded)
def _environment(event: EnvironmentSnapshotRecorded) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    props: dict[str, Value | None] = {
        "key": p.key,
        "python_version": p.python_version,
        "driver_version": p.driver_version,
        "built_at": format_time(p.built_at) if p.built_at else None,
        "built_by": p.built_by,
        **_image("image", p.image),
        **_image("base_image", p.base_image),
        **with_json("frameworks", p.frameworks, "framework"),
        **with_json("parallel_libs", p.parallel_libs, "parallel_lib"),
        **with_json("compute_libs", p.compute_libs, "compute_lib"),
        **with_json("packages", p.packages, "package"),
        **with_json("system", p.system, "system"),
        **contents_props(contents_of(p)),  # read-only: later snapshots are compared with it
    }
    out: list[Mutation] = [ctx.node(me, defining=True, props=props)]
    return out + ctx.linked(me, Rel.BASED_ON, p.based_on)
