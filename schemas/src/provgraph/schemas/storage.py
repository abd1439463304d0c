"""How the graph model is stored: property names and value encodings, written once.

Neo4j properties hold primitives and arrays of primitives only, so the projection (the writer)
encodes what events say by the conventions below, and every reader decodes with the same
functions; none of them spells a convention by hand.

- Every node carries the bookkeeping properties `id`, `project`, `first_seen_at`,
  `last_event_at`, `deleted_at` (soft delete) and `placeholder`; a run, checkpoint or
  evaluation that an event wrote also carries `claimed` (its owning project is then fixed);
  every relationship carries `first_seen_at`.
- Times are fixed-width UTC text (`2026-01-05T09:00:00.000000Z`): string order is time order.
- Versions (last-writer-wins stamps) are text compared as strings: `<time>|<event_id>`. A node
  keeps the version of each property beside it as `_v_<property>`, a relationship its own as
  `_v`, a replaced relationship set its version as `_v_edges.<TYPE>`. Every name that starts
  with `_v` is internal: readers never expose it. What a mere reference says (the names an
  OpenLineage input is known by) is versioned `!<time>|<event_id>`, below every event's own.
- A nested value is canonical JSON text under `<name>_json`; the scalar leaves of a nested map
  are also copied, as `<prefix>.<key>[.<sub>]` (three levels at most), so that they can be
  filtered: a run's parameter `lr` is `param.lr`.
- A small record is flattened to `<record>_<field>` (`code_commit`, `image_digest`).
- A keyed series is `<kind>.<key>` (`metric.loss`, `status_at.approved`,
  `access.<principal>.<role>`).
- A run's logged metric series is kept downsampled on a node of its own (label
  `graph.METRIC_SERIES_LABEL`, one per run and metric name, outside the lineage graph): its
  steps fall into log-spaced buckets, and each bucket keeps the point at the highest step in
  it. The points are four lists in bucket order: `buckets`, `steps`, `values` and their
  versions `_v_points` (see `series_bucket`, `series_lists`).
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from datetime import datetime
from typing import Any, NamedTuple

Primitive = str | int | float | bool
Value = Primitive | tuple[str, ...] | tuple[float, ...]
"""A property value: a primitive or an array of primitives (never a map)."""

# Bookkeeping properties of every node.
ID = "id"
PROJECT = "project"
FIRST_SEEN_AT = "first_seen_at"
LAST_EVENT_AT = "last_event_at"
DELETED_AT = "deleted_at"
PLACEHOLDER = "placeholder"
CLAIMED = "claimed"
"""True on a run, checkpoint or evaluation once an event wrote it: its `project` is then fixed."""
BOOKKEEPING = frozenset(
    {ID, PROJECT, FIRST_SEEN_AT, LAST_EVENT_AT, DELETED_AT, PLACEHOLDER, CLAIMED}
)

INTERNAL_PREFIX = "_v"
EDGE_VERSION = "_v"
"""The relationship property holding the version of its last-writer-wins properties."""

JSON_SUFFIX = "_json"
FLATTEN_DEPTH = 3
"""How many levels of a nested map are copied as scalar properties; deeper stays in the JSON."""

PARAMS, PARAM = "params", "param"  # a run's parameters: `params_json` and `param.<name>`
# A project's grants: `access.<principal>.<role>` = granted | revoked, and when one expires.
ACCESS, ACCESS_EXPIRES_AT = "access", "access_expires_at"


# ---- times and versions -------------------------------------------------------------------


def format_time(value: datetime) -> str:
    """Fixed-width UTC text, so string order is time order (microseconds always present).

    The text of `strftime("%Y-%m-%dT%H:%M:%S.%fZ")`, built from `isoformat` (less than half
    its time; the fold writes three an event): its first 26 characters are the same text for
    a four-digit year, the offset of an aware value coming after them."""
    if value.year < 1000:  # strftime writes such a year unpadded: its text, as always
        return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return value.isoformat(timespec="microseconds")[:26] + "Z"


def event_version(time: str, event_id: str) -> str:
    """The version of what one event wrote: its time, then its id (string order = both)."""
    return f"{time}|{event_id}"


def mention_version(version: str) -> str:
    """The version of what a reference says of an entity it does not write (the names it calls
    it by): `!` sorts before every digit, so any event that writes the entity wins, and
    references decide among themselves by their own versions."""
    return f"!{version}"


def rank_version(rank: int) -> str:
    """A version that is a rank (status only moves forward: the highest rank wins)."""
    return f"{rank:04d}"


def step_version(step: int, version: str) -> str:
    """A version ordered by a step first, then by the event's version (last metric value)."""
    return f"{step:020d}|{version}"


def version_key(prop: str) -> str:
    """The node property holding the version of the last-writer-wins property `prop`."""
    return f"{INTERNAL_PREFIX}_{prop}"


def replaced_version_key(rel: str) -> str:
    """The node property holding the version of its current `rel` relationship set."""
    return f"{INTERNAL_PREFIX}_edges.{rel}"


def is_internal(key: str) -> bool:
    """A version stamp, never shown to readers."""
    return key.startswith(INTERNAL_PREFIX)


def public(props: Mapping[str, Any], without: Container[str] = ()) -> dict[str, Any]:
    """The properties without the internal version stamps (nor those named in `without`), by
    key: the order Neo4j hands them back in follows its property-key tokens, so it differs
    from one database to the next."""
    # Called for every node and edge of an answer: the prefix test inlined.
    internal = INTERNAL_PREFIX
    return {k: props[k] for k in sorted(props) if not k.startswith(internal) and k not in without}


def public_deep(value: Any) -> Any:
    """`public` at every depth of a value made of maps and lists."""
    if isinstance(value, Mapping):
        return {k: public_deep(v) for k, v in value.items() if not is_internal(k)}
    if isinstance(value, list):
        return [public_deep(v) for v in value]
    return value


def stored_value(value: Any) -> Any:
    """A value as Neo4j hands it back: arrays as lists."""
    return list(value) if isinstance(value, tuple) else value


# ---- nested values --------------------------------------------------------------------------


def json_key(name: str) -> str:
    """The property holding the nested value `name` as JSON text."""
    return f"{name}{JSON_SUFFIX}"


def encode_json(value: Any) -> str:
    """Canonical JSON text of a nested value (sorted keys, no spaces, unicode kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decode_json(props: Mapping[str, Any], name: str) -> Any:
    """The nested value `name` of stored properties; None when absent or not JSON."""
    raw = props.get(json_key(name))
    return parse_json(raw) if isinstance(raw, str) else raw


def parse_json(text: str) -> Any:
    """Stored JSON text decoded; None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:  # a malformed archive should not fail a whole answer
        return None


def flatten(prefix: str, data: Mapping[str, Any], depth: int = 0) -> dict[str, Value]:
    """Scalar copies of a nested map as `prefix.key.sub` properties, for filtering."""
    out: dict[str, Value] = {}
    for key, value in data.items():
        name = dotted(prefix, key)
        if isinstance(value, Mapping) and depth + 1 < FLATTEN_DEPTH:
            out.update(flatten(name, value, depth + 1))
        elif isinstance(value, str | int | float | bool):
            out[name] = value
    return out


def with_json(name: str, data: Mapping[str, Any], flat_prefix: str) -> dict[str, Value | None]:
    """`<name>_json` plus its flattened scalar copies; nothing when the map is empty."""
    if not data:
        return {}
    return {json_key(name): encode_json(data), **flatten(flat_prefix, data)}


def param_key(name: str) -> str:
    """The flattened copy of a run parameter (`param.lr`)."""
    return dotted(PARAM, name)


# ---- records and keyed series ---------------------------------------------------------------


def record(prefix: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """A small record as `<prefix>_<field>` properties."""
    return {record_key(prefix, k): v for k, v in fields.items()}


def record_key(prefix: str, field: str) -> str:
    """The property of one field of a flattened record."""
    return f"{prefix}_{field}"


def record_of(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The fields of a flattened record that are stored, by field name, sorted."""
    start = record_key(prefix, "")
    return {k[len(start) :]: v for k, v in sorted(props.items()) if k.startswith(start)}


def dotted(kind: str, *keys: str) -> str:
    """One entry of a keyed series: `<kind>.<key>[.<key>]`."""
    return ".".join((kind, *keys))


# ---- downsampled metric series --------------------------------------------------------------

SERIES_BUCKETS_PER_OCTAVE = 16
"""K: a metric series keeps one point per bucket, bucket(step) = floor(K * log2(step + 1)), so
at most K * log2(max_step + 1) + 1 points (269 for each of a million steps, 1,009 for any 64-bit
step), one per step up to step 26, where a loss moves fast."""
SERIES_RUN, SERIES_NAME = "run", "name"  # the run id and the metric name of a series node
# A series node's points, one entry per kept bucket in bucket (so step) order: four lists, as
# few properties as Neo4j can hold them in (a property per point was the largest part of
# writing a batch of metric events).
SERIES_BUCKETS, SERIES_STEPS, SERIES_VALUES = "buckets", "steps", "values"
SERIES_VERSIONS = version_key("points")  # each point's version (`step_version`): internal
_LISTS = (SERIES_BUCKETS, SERIES_STEPS, SERIES_VALUES, SERIES_VERSIONS)
_LEGACY_STEP, _LEGACY_VALUE = "step.", "value."  # a point per property, before the lists


class SeriesPoint(NamedTuple):
    """The kept point of one bucket: its step, its value and the version that wrote it (by
    `step_version`, so the bucket's highest step wins, and the later event on a tie)."""

    step: int
    value: float
    version: str


def series_bucket(step: int) -> int:
    """floor(K * log2(step + 1)) in integers: the largest b with 2**b <= (step + 1)**K. Exact
    for every step on every platform (a float log2 could put a bucket's edge elsewhere)."""
    power: int = (step + 1) ** SERIES_BUCKETS_PER_OCTAVE
    return power.bit_length() - 1


def series_id(run: str, name: str) -> str:
    """The id of the series node of metric `name` of `run` (no typed id holds a `#`)."""
    return f"{run}#{name}"


def series_lists(points: Mapping[int, SeriesPoint]) -> dict[str, Value]:
    """The stored properties of a series' points (bucket -> point): its four lists, by
    bucket. Values are stored as floats (a Neo4j list holds one type)."""
    buckets = sorted(points)
    kept = [points[b] for b in buckets]
    return {
        SERIES_BUCKETS: tuple(buckets),
        SERIES_STEPS: tuple(p.step for p in kept),
        SERIES_VALUES: tuple(float(p.value) for p in kept),
        SERIES_VERSIONS: tuple(p.version for p in kept),
    }


def series_stored(props: Mapping[str, Any]) -> dict[int, SeriesPoint]:
    """The points (bucket -> point) that a series node's lists hold (`series_lists`)."""
    lists = (props.get(key) or () for key in _LISTS)
    return {b: SeriesPoint(step, value, v) for b, step, value, v in zip(*lists, strict=True)}


def series_points(props: Mapping[str, Any]) -> list[tuple[int, float]]:
    """The (step, value) points of a stored series node, by step; its versions may be left
    out (readers leave internal properties out). A node written before the lists holds a
    point per property (`step.<b>` and `value.<b>`): those are read too, for the buckets the
    lists do not hold, until `replay` rebuilds the graph."""
    buckets = props.get(SERIES_BUCKETS) or ()
    steps, values = props.get(SERIES_STEPS) or (), props.get(SERIES_VALUES) or ()
    points = [(step, float(value)) for step, value in zip(steps, values, strict=True)]
    for key, step in props.items():
        if not key.startswith(_LEGACY_STEP) or not isinstance(step, int):
            continue
        bucket = key[len(_LEGACY_STEP) :]
        value = props.get(_LEGACY_VALUE + bucket)
        if bucket.isdigit() and int(bucket) not in buckets and isinstance(value, int | float):
            points.append((step, float(value)))
    return sorted(points)
