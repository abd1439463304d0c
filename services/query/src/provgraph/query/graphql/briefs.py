"""Fields that several answers show alike, each under a GraphQL type of its own (its name,
its description): a base type here holds the fields and how a recipe's answer fills them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import strawberry


@strawberry.type
class ErrorBrief:
    """The error a run recorded, as the recipes answer it (`{type, message}`, or None)."""

    type: str | None
    message: str | None

    @classmethod
    def of(cls, error: Mapping[str, Any] | None) -> Self | None:
        return None if not error else cls(type=error.get("type"), message=error.get("message"))
