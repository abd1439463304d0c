"""A shorter way through graphql-core's executor for plain scalar fields.

A lineage answer holds up to 10,000 nodes of ~10 scalar fields each, almost all of them plain
attributes (`fields.py`). For every one, graphql-core builds an `info` object, reads the
field's arguments and completes the value through the type dispatch, which costs several times
the read itself. This executor answers such a field at once when:

- strawberry resolves it as a plain attribute (no resolver, no field extension; strawberry
  marks that resolver `_is_default`) and no middleware wraps resolvers;
- the document gives it no arguments, and its type is a scalar or an enum (nullable or not);
- the value completes without error (not null where the type is non-null, and coerced).

Anything else, every failure included, goes the standard way (the attribute is read again),
so answers and errors are graphql-core's own.

A list of objects whose selected fields are all such fields (the nodes and edges of a lineage)
is completed in one pass, without graphql-core's per-item dispatch (`flat.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from weakref import WeakKeyDictionary

from graphql import (
    GraphQLField,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    OperationDefinitionNode,
    SelectionSetNode,
    is_leaf_type,
)
from graphql.pyutils import Undefined
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from provgraph.query.graphql import flat

_STANDARD = object()  # "complete this field the standard way"
Leaf = tuple[GraphQLLeafType, bool] | None  # (the scalar or enum, non-null), None: not a leaf


class LeafExecution(StrawberryGraphQLCoreExecutionContext):
    """strawberry's executor, answering plain scalar fields directly (module docstring)."""

    _leaves: dict[tuple[str, str], Leaf] | None = None  # per request: (type, field) -> Leaf
    # Per request: (item type, id of the list's field details, item class) -> (the field
    # details, kept alive so that their id is not reused, and the plan or None).
    _plans: dict[tuple[str, int, type], tuple[Any, flat.Plan | None]] | None = None
    _shared: SharedPlans | bool | None = False  # False: not looked up yet; None: not shared

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: Any,
        info: Any,
        path: Any,
        result: Any,
        *rest: Any,
    ) -> Any:
        if isinstance(result, list | tuple) and not _streamed(field_details_list):
            item_type = flat.unwrap(return_type.of_type)
            answer = flat.complete(
                result, lambda cls: self._plan(item_type, field_details_list, cls)
            )
            if answer is not None:
                return answer
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, *rest
        )

    def _plan(self, item_type: GraphQLOutputType, details: Any, cls: type) -> flat.Plan | None:
        if self._plans is None:
            self._plans = {}
        key = (str(item_type), id(details), cls)
        if key not in self._plans:
            shared = self._shared_plans()
            if shared is None:
                made = self._make_plan(item_type, details, cls)
            else:
                made = shared.plan(item_type, details, cls, self._make_plan)
            self._plans[key] = (details, made)
        return self._plans[key][1]

    def _make_plan(self, item_type: GraphQLOutputType, details: Any, cls: type) -> flat.Plan | None:
        runtime = flat.runtime_type(self.schema, item_type, cls)
        if runtime is None:
            return None
        return flat.plan(runtime, self.collect_subfields(runtime, details), self._leaf, cls)

    def _shared_plans(self) -> SharedPlans | None:
        """This schema's plans across requests, when this request may use them: no middleware
        (which could wrap a plain field) and an operation without directives (whose fields
        could then depend on variables, `@skip`/`@include`, or be deferred)."""
        if self._shared is False:
            manager = self.middleware_manager
            shared = None
            if manager is None or not manager.middlewares:
                shared = SharedPlans.of(self.schema)
                if not shared.plain(self.operation, self.fragments):
                    shared = None
            self._shared = shared
        return self._shared if isinstance(self._shared, SharedPlans) else None

    def execute_field(
        self, parent_type: GraphQLObjectType, source: Any, fields: Any, *rest: Any
    ) -> Any:
        # `fields`: graphql-core 3.3's field details (`.node`), or 3.2's field nodes; the rest
        # of the arguments pass through as they came, whatever the version's signature.
        first = fields[0]
        value = self._plain(parent_type, source, getattr(first, "node", first))
        if value is not _STANDARD:
            return value
        return super().execute_field(parent_type, source, fields, *rest)

    def _plain(self, parent_type: GraphQLObjectType, source: Any, node: Any) -> Any:
        """The field's completed value, or _STANDARD."""
        if node.arguments:
            return _STANDARD
        field_def = parent_type.fields.get(node.name.value)  # None for __typename
        leaf = None if field_def is None else self._leaf(parent_type, node.name.value, field_def)
        if field_def is None or leaf is None:
            return _STANDARD
        kind, non_null = leaf
        try:
            value = field_def.resolve(source, None)  # a plain attribute reads no info
            if value is None:
                return _STANDARD if non_null else None
            completed = kind.coerce_output_value(value)
        except Exception:  # the standard way reports it
            return _STANDARD
        return _STANDARD if completed is None or completed is Undefined else completed

    def _leaf(self, parent_type: GraphQLObjectType, name: str, field_def: GraphQLField) -> Leaf:
        if self._leaves is None:
            self._leaves = {}
        key = (parent_type.name, name)
        if key not in self._leaves:
            self._leaves[key] = self._plain_leaf(field_def)
        return self._leaves[key]

    def _plain_leaf(self, field_def: GraphQLField) -> Leaf:
        resolve = field_def.resolve
        if resolve is None or field_def.args or not getattr(resolve, "_is_default", False):
            return None
        manager = self.middleware_manager
        if manager is not None and manager.get_field_resolver(resolve) is not resolve:
            return None
        kind = field_def.type
        non_null = isinstance(kind, GraphQLNonNull)
        inner = kind.of_type if isinstance(kind, GraphQLNonNull) else kind
        return (inner, non_null) if is_leaf_type(inner) else None


def _streamed(field_details_list: Any) -> bool:
    """The list field is asked `@stream` (incremental delivery: left to graphql-core)."""
    nodes = (getattr(detail, "node", detail) for detail in field_details_list)
    return any(d.name.value == "stream" for node in nodes for d in node.directives or ())


class SharedPlans:
    """The plans of one schema, shared across requests: a document the cache keeps is the same
    objects on every request, so a list field's plan for an item class is made once, not per
    request. Keyed by the identity of the field nodes (kept alive with the plan, so that no
    other node takes their id), for operations without directives only (`plain`). Bounded:
    emptied when full (a few texts are in use at a time; it fills again at once)."""

    SIZE = 4096
    _of: ClassVar[WeakKeyDictionary[GraphQLSchema, SharedPlans]] = WeakKeyDictionary()
    _lock = threading.Lock()

    def __init__(self) -> None:
        # (item type, ids of the field nodes, item class) -> (the nodes, the plan or None)
        self._plans: dict[tuple[str, tuple[int, ...], type], tuple[Any, flat.Plan | None]] = {}
        # id of an operation -> (the operation, whether it and its fragments hold no directive)
        self._plain: dict[int, tuple[OperationDefinitionNode, bool]] = {}

    @classmethod
    def of(cls, schema: GraphQLSchema) -> SharedPlans:
        found = cls._of.get(schema)
        if found is None:
            with cls._lock:
                found = cls._of.setdefault(schema, cls())
        return found

    def plain(self, operation: OperationDefinitionNode, fragments: Mapping[str, Any]) -> bool:
        """The operation (and the fragments of its document: graphql-core 3.3's fragment
        details, or 3.2's definitions) use no directive."""
        known = self._plain.get(id(operation))
        if known is None:
            parts = [getattr(f, "definition", f) for f in fragments.values()]
            directed = any(_directed(part.selection_set) for part in [operation, *parts])
            known = (operation, not directed)
            if len(self._plain) >= self.SIZE:
                self._plain.clear()
            self._plain[id(operation)] = known
        return known[1]

    def plan(
        self,
        item_type: GraphQLOutputType,
        details: Any,
        cls: type,
        make: Callable[[GraphQLOutputType, Any, type], flat.Plan | None],
    ) -> flat.Plan | None:
        nodes = tuple(getattr(detail, "node", detail) for detail in details)
        key = (str(item_type), tuple(map(id, nodes)), cls)
        known = self._plans.get(key)
        if known is None:
            known = (nodes, make(item_type, details, cls))
            if len(self._plans) >= self.SIZE:
                self._plans.clear()
            self._plans[key] = known
        return known[1]


def _directed(selections: SelectionSetNode | None) -> bool:
    """A directive anywhere in `selections`."""
    for selection in selections.selections if selections is not None else ():
        if selection.directives or _directed(getattr(selection, "selection_set", None)):
            return True
    return False
