"""Every `ID` argument of a declared field is checked before its resolver runs.

`fields.field` gives each field it declares a `CheckedIds` extension: the field's `ID`
arguments (found once, when the schema is built) pass `provgraph.query.ids.checked_id`, so
`node(id: "not-an-id")` is `invalid_id` naming the argument, for every field alike, and no
resolver repeats the check.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import strawberry
from strawberry.extensions import FieldExtension
from strawberry.types.arguments import StrawberryArgument
from strawberry.types.base import StrawberryOptional
from strawberry.types.field import StrawberryField

from provgraph.query.ids import checked_id


def _is_id(annotation: object) -> bool:
    while isinstance(annotation, StrawberryOptional):
        annotation = annotation.of_type
    return annotation is strawberry.ID


class CheckedIds(FieldExtension):
    """Refuses a malformed id in any `ID` argument of the field with `invalid_id`."""

    def __init__(self) -> None:
        self._ids: list[StrawberryArgument] = []

    def apply(self, field: StrawberryField) -> None:
        self._ids = [arg for arg in field.arguments if _is_id(arg.type)]

    def _check(self, info: strawberry.Info, kwargs: Mapping[str, Any]) -> None:
        for arg in self._ids:
            value = kwargs.get(arg.python_name)
            if value is not None:
                # Named as the caller wrote it: `from`, not the resolver's `from_`.
                checked_id(info.schema.config.name_converter.from_argument(arg), str(value))

    def resolve(
        self, next_: Callable[..., Any], source: Any, info: strawberry.Info, **kwargs: Any
    ) -> Any:
        self._check(info, kwargs)
        return next_(source, info, **kwargs)

    async def resolve_async(
        self,
        next_: Callable[..., Awaitable[Any]],
        source: Any,
        info: strawberry.Info,
        **kwargs: Any,
    ) -> Any:
        self._check(info, kwargs)
        return await next_(source, info, **kwargs)
