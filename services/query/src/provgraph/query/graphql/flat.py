"""Lists of plain objects completed in one pass (used by `execution.LeafExecution`).

A lineage answer is a list of up to 10,000 node objects (and as many edges) of which a client
asks only plain scalar fields (`fields.py`). graphql-core completes each item through its type
dispatch: the runtime type resolved (strawberry's `resolve_type`, then `is_type_of`), the
sub-selection collected, every field executed, completed and gathered; several times the
cost of reading the values themselves. A list is completed here instead, item by item into
plain dicts, when for every item:

- its class is a strawberry object type of the schema, not cast (`strawberry.cast`) nor generic,
  the list's item type or (for an interface or union without a `resolve_type` of its own) one
  of its possible types, and without an `is_type_of` of its own;
- every field the document selects for that type is `__typename` or a plain scalar field
  (`execution.LeafExecution._leaf`), with no `@defer` or `@stream` about;
- every value completes without error, and no item is null.

Otherwise the whole list goes the standard way (the values are read again), so answers and
errors are graphql-core's own. The plan of a (list field, item class) pair, which fields to read
and how to complete them, is made once per request. When every field it reads is read from the
item's view (`fields.read_from_view`: the nodes and edges of a lineage), a row reads the view
once and each value straight from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from graphql import (
    GraphQLAbstractType,
    GraphQLBoolean,
    GraphQLField,
    GraphQLID,
    GraphQLLeafType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    is_abstract_type,
    is_object_type,
)
from graphql.pyutils import Undefined
from strawberry.types.base import StrawberryObjectDefinition
from strawberry.types.cast import TYPE_CAST_ATTRIBUTE  # what `strawberry.cast` sets
from strawberry.types.field import StrawberryField

from provgraph.query.graphql.fields import view_read

_BACKREF = "strawberry-definition"  # where strawberry keeps a GraphQL type's definition


TYPENAME = "__typename"
# One selected field: (response name, read the value from the item, or from its view when the
# plan says so, or None for __typename; complete it or the type name; non-null; the class of
# the values that completing returns as they are, or None).
Entry = tuple[str, Callable[[Any], Any] | None, Any, bool, type | None]

# graphql-core's scalars that answer a value of exactly this class with the value itself
# (`serialize_string`, `serialize_id`, `serialize_boolean`): such a value is not completed again.
_AS_IS: dict[GraphQLScalarType, type] = {GraphQLString: str, GraphQLID: str, GraphQLBoolean: bool}


class Plan(NamedTuple):
    on_view: bool  # every read takes the item's view, not the item
    entries: tuple[Entry, ...]


Leaf = tuple[GraphQLLeafType, bool] | None
LeafOf = Callable[[GraphQLObjectType, str, Any], Leaf]
Collect = Callable[[GraphQLObjectType, Any], Any]


def runtime_type(
    schema: GraphQLSchema, item_type: GraphQLOutputType, cls: type
) -> GraphQLObjectType | None:
    """The object type that items of `cls` complete as in a list of `item_type`, when it is
    found without asking the item (see the module docstring); None otherwise."""
    definition = getattr(cls, "__strawberry_definition__", None)
    if not isinstance(definition, StrawberryObjectDefinition) or definition.is_graphql_generic:
        return None
    if definition.is_type_of is not None or definition.is_interface:
        return None
    found = schema.get_type(definition.name)
    if not is_object_type(found):
        return None
    assert isinstance(found, GraphQLObjectType)  # for mypy
    if (found.extensions or {}).get(_BACKREF) is not definition:
        return None
    if found is item_type:
        return found
    if is_abstract_type(item_type):
        assert isinstance(item_type, GraphQLAbstractType)  # for mypy: an interface or union
        own = (item_type.extensions or {}).get(_BACKREF)
        if getattr(own, "resolve_type", None) is not None:
            return None
        return found if schema.is_sub_type(item_type, found) else None
    return None


def plan(runtime: GraphQLObjectType, collected: Any, leaf_of: LeafOf, cls: type) -> Plan | None:
    """How to answer the fields `collected` (graphql-core's collected sub-fields of `runtime`)
    of an item of class `cls`, or None when one of them is not a plain scalar field."""
    grouped, defers, *_ = collected
    if defers:
        return None
    chosen: list[tuple[str, GraphQLField | None, Any, bool, type | None]] = []
    for response_name, details in grouped.items():
        if any(getattr(detail, "defer_usage", None) is not None for detail in details):
            return None
        node = details[0].node
        name = node.name.value
        if name == TYPENAME:
            chosen.append((response_name, None, runtime.name, True, None))
            continue
        field_def = runtime.fields.get(name)
        leaf = None if field_def is None or node.arguments else leaf_of(runtime, name, field_def)
        if field_def is None or leaf is None:
            return None
        kind, non_null = leaf
        as_is = _AS_IS.get(kind) if isinstance(kind, GraphQLScalarType) else None
        chosen.append((response_name, field_def, kind.coerce_output_value, non_null, as_is))
    reads = {name: _view_read(d, cls) for name, d, *_ in chosen if d is not None}
    on_view = bool(reads) and None not in reads.values()
    entries = tuple(
        (name, None if d is None else reads[name] if on_view else _reader(d), *completion)
        for name, d, *completion in chosen
    )
    return Plan(on_view, entries)


def _view_read(field_def: GraphQLField, cls: type) -> Callable[[Any], Any] | None:
    """The field's read from an item's view, when `cls` reads it from its view as an attribute."""
    field = (field_def.extensions or {}).get(_BACKREF)
    if isinstance(field, StrawberryField) and field.default_resolver is getattr:
        return view_read(cls, field.python_name)
    return None


def _reader(field_def: GraphQLField) -> Callable[[Any], Any]:
    """The plain field's value of an item: the attribute itself when strawberry would read it
    with `getattr` (its default resolver), else through the field's resolver."""
    field = (field_def.extensions or {}).get(_BACKREF)
    if isinstance(field, StrawberryField) and field.default_resolver is getattr:
        return attrgetter(field.python_name)
    resolve = field_def.resolve
    assert resolve is not None  # a plain field has strawberry's default resolver
    return lambda item: resolve(item, None)  # a plain attribute reads no info


def complete(items: Sequence[Any], plans: Callable[[type], Plan | None]) -> list[Any] | None:
    """Every item as the dict of its answered fields, or None: the list goes the standard way."""
    answer: list[Any] = []
    append = answer.append
    chosen: dict[type, Plan | None] = {}  # the plan of each item class, asked once a list
    try:
        for item in items:
            cls = type(item)
            if cls not in chosen:
                chosen[cls] = None if item is None else plans(cls)
            entries = chosen[cls]
            if entries is None or getattr(item, TYPE_CAST_ATTRIBUTE, None) is not None:
                return None
            row = _row(item.view if entries.on_view else item, entries.entries)
            if row is None:
                return None
            append(row)
    except Exception:  # the standard way reports it
        return None
    return answer


def _row(source: Any, entries: tuple[Entry, ...]) -> dict[str, Any] | None:
    row: dict[str, Any] = {}
    for name, read, finish, non_null, as_is in entries:
        if read is None:
            row[name] = finish  # __typename
            continue
        value = read(source)
        if value.__class__ is as_is:  # what completing it would answer
            row[name] = value
            continue
        if value is None:
            if non_null:
                return None
            row[name] = None
            continue
        done = finish(value)
        if done is None or done is Undefined:
            return None
        row[name] = done
    return row


def unwrap(kind: GraphQLOutputType) -> GraphQLOutputType:
    """The type inside a non-null wrapper."""
    return kind.of_type if isinstance(kind, GraphQLNonNull) else kind
