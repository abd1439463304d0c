"""Value types shared by the payloads: checksums, storage URIs and free-form maps."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field, JsonValue, WithJsonSchema
from pydantic_core import PydanticCustomError

from provgraph.schemas.limits import (
    FREE_JSON_MARK,
    INT64_MAX,
    KEY_SCHEMA,
    MAX_FLOAT,
    MAX_JSON_KEYS,
    check_free_json,
    check_key,
    check_scalar,
    int_schema,
    scalar_schema,
)
from provgraph.schemas.patterns import SPACE, matches, whole

# Hex length per algorithm; blake3 is its default 256-bit output.
CHECKSUM_HEX_LENGTHS: dict[str, int] = {
    "sha256": 64,
    "sha1": 40,
    "sha512": 128,
    "md5": 32,
    "blake3": 64,
    "xxh64": 16,
}
DEFAULT_CHECKSUM_ALGORITHM = "sha256"
CHECKSUM_RE = whole("|".join(f"{a}:[0-9a-f]{{{n}}}" for a, n in CHECKSUM_HEX_LENGTHS.items()))
STORAGE_URI_RE = whole(rf"[A-Za-z][A-Za-z0-9+.-]*://[^{SPACE}]+")
EXACT_VERSION_RE = whole(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")
MAX_URI_CHARS = 4096
"""Longest URI (a signed URL included)."""
MAX_VERSION_CHARS = 128
"""Longest exact version of a package."""


def _checksum(value: str) -> str:
    algorithm, sep, digest = value.partition(":")
    expected = CHECKSUM_HEX_LENGTHS.get(algorithm)
    if not sep or expected is None:
        raise PydanticCustomError(
            "checksum",
            "checksum '{value}' must be '<algorithm>:<hex>' with algorithm one of {known}",
            {"value": value, "known": ", ".join(CHECKSUM_HEX_LENGTHS)},
        )
    if re.fullmatch(f"[0-9a-f]{{{expected}}}", digest) is None:
        raise PydanticCustomError(
            "checksum",
            "{algorithm} checksum needs {n} lowercase hex digits, got '{value}'",
            {"algorithm": algorithm, "n": expected, "value": value},
        )
    return value


def _storage_uri(value: str) -> str:
    if not matches(STORAGE_URI_RE, value):
        raise PydanticCustomError(
            "storage_uri",
            "storage location '{value}' must be a URI with a scheme, "
            "e.g. s3://bucket/key, gs://..., file:///abs/path, hdfs://..., https://..., az://...",
            {"value": value},
        )
    return value


def _exact_version(value: str) -> str:
    if not matches(EXACT_VERSION_RE, value):
        raise PydanticCustomError(
            "exact_version",
            "'{value}' is not an exact version (no ranges such as '>=1.0' or '^2')",
            {"value": value},
        )
    return value


Checksum = Annotated[
    str, AfterValidator(_checksum), WithJsonSchema({"type": "string", "pattern": CHECKSUM_RE})
]
"""``<algorithm>:<hex>``, e.g. ``sha256:9f86d0...``."""

StorageUri = Annotated[
    str,
    Field(max_length=MAX_URI_CHARS),
    AfterValidator(_storage_uri),
    WithJsonSchema({"type": "string", "pattern": STORAGE_URI_RE, "maxLength": MAX_URI_CHARS}),
]
"""A storage location with a scheme: ``s3://``, ``gs://``, ``file://``, ``hdfs://`` ..."""

ExactVersion = Annotated[
    str,
    Field(max_length=MAX_VERSION_CHARS),
    AfterValidator(_exact_version),
    WithJsonSchema({"type": "string", "pattern": EXACT_VERSION_RE, "maxLength": MAX_VERSION_CHARS}),
]
"""A pinned version such as ``2.3.1+cu121``; ranges are refused."""


MAX_SCALAR_CHARS = 4096
"""Longest text of a free scalar (a quality check's or a validation's measured value)."""


def _scalar(value: Any) -> Any:
    if value is not None and not isinstance(value, str | int | float | bool):
        raise PydanticCustomError(
            "json_scalar_type", "expected a string, number, boolean or null", {}
        )
    if isinstance(value, str) and len(value) > MAX_SCALAR_CHARS:
        raise PydanticCustomError(
            "string_too_long", "text of at most {n} characters", {"n": MAX_SCALAR_CHARS}
        )
    return check_scalar(value)


JsonScalar = Annotated[
    Any,
    AfterValidator(_scalar),
    WithJsonSchema(scalar_schema(MAX_SCALAR_CHARS)),
]
"""One JSON scalar value (no arrays or objects): integers within 64 bits, finite numbers."""

JsonMap = Annotated[
    dict[str, JsonValue],
    AfterValidator(check_free_json),
    # jsonschema_gen puts the shared definitions of the limits in place of the mark.
    WithJsonSchema({"type": "object", FREE_JSON_MARK: True}),
]
"""A free-form map (params, metrics, system config, OpenLineage events): JSON values within
the limits of `provgraph.schemas.limits` (64-bit integers, depth, key count and key text)."""

MapKey = Annotated[str, AfterValidator(check_key), WithJsonSchema(KEY_SCHEMA)]
"""The key of a typed map (package names, mix ratios, parallelism degrees)."""

Ratio = Annotated[float, Field(ge=0.0, le=1.0)]
Finite = Annotated[float, Field(ge=-MAX_FLOAT, le=MAX_FLOAT)]
"""A finite float (the bounds put it in the JSON Schema too: no 1e999)."""
Count = Annotated[int, Field(ge=0, le=INT64_MAX), WithJsonSchema(int_schema(0, INT64_MAX))]
"""A non-negative integer within signed 64 bits."""
Positive = Annotated[int, Field(ge=1, le=INT64_MAX), WithJsonSchema(int_schema(1, INT64_MAX))]
"""A positive integer within signed 64 bits."""
Label = Annotated[str, Field(max_length=256)]
"""A short free label (an owner, a branch, a format): at most 256 characters."""
Tags = Annotated[tuple[Label, ...], Field(max_length=256)]
"""At most 256 labels."""


VersionMap = Annotated[dict[MapKey, ExactVersion], Field(max_length=MAX_JSON_KEYS)]
"""Name -> exact version (frameworks, libraries), at most `MAX_JSON_KEYS` entries."""
MAX_PACKAGES = 4096
PackageMap = Annotated[dict[MapKey, ExactVersion], Field(max_length=MAX_PACKAGES)]
"""Every installed package -> its exact version: at most `MAX_PACKAGES` (an environment can
hold more than a thousand)."""
RatioMap = Annotated[dict[MapKey, Ratio], Field(max_length=MAX_JSON_KEYS)]
"""Name -> share (0..1), at most `MAX_JSON_KEYS` entries."""
DegreeMap = Annotated[dict[MapKey, Positive], Field(max_length=MAX_JSON_KEYS)]
"""Name -> a positive count (parallelism degrees), at most `MAX_JSON_KEYS` entries."""
