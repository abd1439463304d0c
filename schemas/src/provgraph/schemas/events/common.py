"""Value types shared by the payloads: checksums, storage URIs and free-form maps."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field, JsonValue, WithJsonSchema
from pydantic_core import PydanticCustomError

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
CHECKSUM_RE = (
    "^(?:" + "|".join(f"{a}:[0-9a-f]{{{n}}}" for a, n in CHECKSUM_HEX_LENGTHS.items()) + ")$"
)
STORAGE_URI_RE = r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$"
EXACT_VERSION_RE = r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$"


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
    if re.fullmatch(STORAGE_URI_RE, value) is None:
        raise PydanticCustomError(
            "storage_uri",
            "storage location '{value}' must be a URI with a scheme, "
            "e.g. s3://bucket/key, gs://..., file:///abs/path, hdfs://..., https://..., az://...",
            {"value": value},
        )
    return value


def _exact_version(value: str) -> str:
    if re.fullmatch(EXACT_VERSION_RE, value) is None:
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
    AfterValidator(_storage_uri),
    WithJsonSchema({"type": "string", "pattern": STORAGE_URI_RE}),
]
"""A storage location with a scheme: ``s3://``, ``gs://``, ``file://``, ``hdfs://`` ..."""

ExactVersion = Annotated[
    str,
    AfterValidator(_exact_version),
    WithJsonSchema({"type": "string", "pattern": EXACT_VERSION_RE}),
]
"""A pinned version such as ``2.3.1+cu121``; ranges are refused."""


def _scalar(value: Any) -> Any:
    if value is not None and not isinstance(value, str | int | float | bool):
        raise PydanticCustomError(
            "json_scalar_type", "expected a string, number, boolean or null", {}
        )
    return value


JsonScalar = Annotated[
    Any,
    AfterValidator(_scalar),
    WithJsonSchema({"type": ["string", "number", "boolean", "null"]}),
]
"""One JSON scalar value (no arrays or objects)."""
JsonMap = dict[str, JsonValue]
"""A free-form map (params, metrics, system config): JSON scalars or nested values."""

Ratio = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]
