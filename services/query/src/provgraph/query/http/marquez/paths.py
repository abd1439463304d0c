"""Routes whose path parameters may hold `/`: Marquez names (`s3://lake`, `tokens/abc`).

Marquez clients send such a name as one encoded path segment (`s3%3A%2F%2Flake`), but the
server decodes the path before routing, and `/namespaces/s3://lake/datasets/tokens/abc` can no
longer be split. `EncodedSegmentRoute` matches on the request's raw path with only `%2F` (and
`%25`) left encoded, so each parameter is one segment, then decodes the parameters. A slash
sent unencoded still separates segments, as in Marquez.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

_KEPT = re.compile(r"(%2[Ff5])")


def keep_encoded_slashes(raw_path: str) -> str:
    """The raw path decoded, except `%2F` and `%25` (so that decoding it again is exact)."""
    return "".join(p if _KEPT.fullmatch(p) else unquote(p) for p in _KEPT.split(raw_path))


class EncodedSegmentRoute(APIRoute):
    """An APIRoute whose `{param}`s are whole raw path segments, decoded after matching."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        raw = scope.get("raw_path")
        if scope["type"] != "http" or scope.get("root_path") or not isinstance(raw, bytes):
            return super().matches(scope)  # mounted under a prefix: the path as given
        kept = keep_encoded_slashes(raw.decode("utf-8", "replace"))
        match, child = super().matches({**scope, "path": kept})
        if match is not Match.NONE:
            child["path_params"] = _decoded(child.get("path_params", {}))
        return match, child


def _decoded(params: dict[str, Any]) -> dict[str, Any]:
    return {k: unquote(v) if isinstance(v, str) else v for k, v in params.items()}
