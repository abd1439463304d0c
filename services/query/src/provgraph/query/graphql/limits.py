"""Hardening: depth, alias, token and complexity limits, and switchable introspection.

Every limit is checked before execution; an oversized query is answered with
`limit_exceeded` errors and nothing is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
    get_named_type,
    get_nullable_type,
    is_list_type,
)
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)

from provgraph.query.graphql.errors import LIMIT_EXCEEDED
from provgraph.query.settings import QuerySettings

# A list without `first`/`limit` counts as this many items in the complexity estimate.
DEFAULT_LIST_SIZE = 10
_SIZE_ARGS = ("first", "limit")


Factory = Callable[[], SchemaExtension]


def limit_extensions(settings: QuerySettings) -> list[Factory]:
    """Factories of the schema extensions that enforce `settings`' limits (one per request).

    The validation rules (depth, aliases, complexity, introspection) are classes built once
    here, from the settings alone: each request gets one cheap extension adding them, in that
    order, instead of building them again (validation itself runs once per text, `doccache`).
    """
    rules: list[type[ASTValidationRule]] = [
        *_coding(QueryDepthLimiter(max_depth=settings.graphql_max_depth)).validation_rules,
        *_coding(MaxAliasesLimiter(max_alias_count=settings.graphql_max_aliases)).validation_rules,
        complexity_rule(settings.graphql_max_complexity),
    ]
    if not settings.graphql_introspection:
        rules.extend(DisableIntrospection().validation_rules)

    def tokens() -> SchemaExtension:
        return MaxTokensLimiter(max_token_count=settings.graphql_max_tokens)

    def validation() -> SchemaExtension:
        return AddValidationRules(rules)

    return [tokens, validation]


def _coding(limiter: AddValidationRules) -> AddValidationRules:
    limiter.validation_rules = [_coded(rule) for rule in limiter.validation_rules]
    return limiter


class _CodingContext:
    """A ValidationContext whose reported errors carry `extensions.code` LIMIT_EXCEEDED."""

    def __init__(self, inner: ValidationContext) -> None:
        self._inner = inner

    def report_error(self, error: GraphQLError) -> None:
        error.extensions = {**(error.extensions or {}), "code": LIMIT_EXCEEDED}
        self._inner.report_error(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _coded(rule: type[ASTValidationRule]) -> type[ASTValidationRule]:
    # strawberry's limiters report plain errors; this stamps the code on them unchanged.
    class Coded(rule):  # type: ignore[valid-type, misc]
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(cast(ValidationContext, _CodingContext(context)))

    return Coded


def complexity_rule(max_cost: int) -> type[ValidationRule]:
    """A rule refusing operations whose estimated cost is over `max_cost`.

    Cost: every selected field counts 1, times the number of items the lists above it may
    return: a list counts as its own `first`/`limit`, or its parent's (a page's `items`),
    else as DEFAULT_LIST_SIZE.
    """

    class ComplexityRule(ValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
            root = self.context.schema.get_root_type(node.operation)
            if root is None:
                return
            fragments = {
                d.name.value: d
                for d in self.context.document.definitions
                if isinstance(d, FragmentDefinitionNode)
            }
            cost = _Cost(self.context, fragments).of(node.selection_set, root, 1, frozenset())
            if cost > max_cost:
                message = f"Query cost {cost} is over the maximum of {max_cost}."
                error = GraphQLError(message, node, extensions={"code": LIMIT_EXCEEDED})
                self.report_error(error)

    return ComplexityRule


class _Cost:
    """The cost walk over one operation, fragments inlined."""

    def __init__(
        self, context: ValidationContext, fragments: dict[str, FragmentDefinitionNode]
    ) -> None:
        self._schema = context.schema
        self._fragments = fragments

    def of(
        self,
        selections: SelectionSetNode | None,
        parent: GraphQLNamedType,
        mult: int,
        seen: frozenset[str],
        hint: int | None = None,
    ) -> int:
        # `hint`: the `first`/`limit` of a parent that is not itself a list (a page, a
        # lineage): it sizes the lists right below it (`items`, `nodes`).
        if selections is None:
            return 0
        total = 0
        for sel in selections.selections:
            if isinstance(sel, FieldNode):
                total += self._field(sel, parent, mult, seen, hint)
            elif isinstance(sel, InlineFragmentNode):
                cond = sel.type_condition
                scope = self._schema.get_type(cond.name.value) if cond else parent
                total += self.of(sel.selection_set, scope or parent, mult, seen, hint)
            elif isinstance(sel, FragmentSpreadNode) and sel.name.value not in seen:
                # Fragment cycles are reported by graphql's own rule; `seen` only stops them here.
                frag = self._fragments.get(sel.name.value)
                if frag is not None:
                    scope = self._schema.get_type(frag.type_condition.name.value) or parent
                    inner = seen | {sel.name.value}
                    total += self.of(frag.selection_set, scope, mult, inner, hint)
        return total

    def _field(
        self,
        node: FieldNode,
        parent: GraphQLNamedType,
        mult: int,
        seen: frozenset[str],
        hint: int | None,
    ) -> int:
        if not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return mult
        definition = parent.fields.get(node.name.value)
        if definition is None:  # unknown fields (and __typename) are other rules' business
            return mult
        size = _size_arg(node)
        listed = is_list_type(get_nullable_type(definition.type))
        factor = (size or hint or DEFAULT_LIST_SIZE) if listed else 1
        child = get_named_type(definition.type)
        inner_hint = None if listed else size
        return mult + self.of(node.selection_set, child, mult * factor, seen, inner_hint)


def _size_arg(node: FieldNode) -> int | None:
    for arg in node.arguments or ():
        if arg.name.value in _SIZE_ARGS and isinstance(arg.value, IntValueNode):
            return max(1, int(arg.value.value))
    return None
