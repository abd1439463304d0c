"""The short way for known documents: a text the document cache holds as valid runs straight
through graphql-core's executor, and answers exactly as the whole pipeline does (data, errors
and their codes, extensions), logging the same unexpected errors."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from fake_reader import FakeReader
from fakes import fake_readers
from query_graphql_fake import FakeRecipes, story
from strawberry.extensions import AddValidationRules, MaxTokensLimiter, SchemaExtension
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types.graphql import OperationType

from provgraph.core.errors import UnavailableError
from provgraph.query.graphql.errors import StructuredErrors
from provgraph.query.graphql.schema import ProvenanceSchema, make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.settings import QuerySettings

# Answers with data, with a resolver's error (not_found, invalid_argument), with bad variables,
# with several operations, with a DataLoader, and refused ones (validation, limits).
DOCUMENTS: list[tuple[str, dict[str, Any] | None, str | None]] = [
    ('{ lineage(id: "run:r1", depth: 3) { root { id } nodes { id type } edges { from to type } '
     "truncated depths } }", None, None),
    ('{ lineage(id: "dataset:p/web@v1", direction: DOWNSTREAM) { nodes { __typename id } } }',
     None, None),
    ('{ impact(id: "dataset:p/web@v1") { node { id } path { nodes { id } } } }', None, None),
    ('{ node(id: "run:r1") { id ... on Run { experiment { id } inputs { role } } } }', None, None),
    ("query($id: ID!) { node(id: $id) { id type } }", {"id": "run:r2"}, None),
    ("query($id: ID!) { node(id: $id) { id type } }", {"id": 7.5}, None),
    ("query($id: ID!) { node(id: $id) { id type } }", {}, None),
    ('{ lineage(id: "run:none") { truncated } }', None, None),
    ('{ lineage(id: "run:r1", depth: 21) { truncated } }', None, None),
    ('{ diff(a: "run:none", b: "run:r1") }', None, None),
    ('{ history(id: "run:r1") { items { type } nextCursor } }', None, None),
    ('{ search(text: "web") { id } }', None, None),
    ("{ projects }", None, None),
    ('query A { projects } query B { node(id: "run:r1") { id } }', None, "B"),
    ('query A { projects } query B { node(id: "run:r1") { id } }', None, None),
    ('query A { projects } query B { node(id: "run:r1") { id } }', None, "C"),
    ('query($t: Boolean!) { lineage(id: "run:r1") { nodes { ...n } } } '
     "fragment n on Node { id type @skip(if: $t) }", {"t": True}, None),
    ('{ node(id: "run:r1") { nope } }', None, None),
    ('{ node(id: "run:r1") { ... on Run { experiment { runs { experiment { runs { id } } } } } } }',
     None, None),
]  # fmt: skip


def _schema(**overrides: Any) -> tuple[ProvenanceSchema, QuerySettings]:
    settings = QuerySettings(graphql_max_depth=5, **overrides)
    return make_schema(settings), settings


def _answer(result: Any) -> tuple[Any, ...]:
    errors = [e.formatted for e in result.errors] if result.errors else None
    return result.data, errors, result.extensions


def _run(
    schema: ProvenanceSchema,
    settings: QuerySettings,
    reader: FakeReader,
    document: tuple[str, dict[str, Any] | None, str | None],
) -> Any:
    query, variables, name = document
    context = make_context(settings, fake_readers(reader), FakeRecipes(), Scope.everything())
    return schema.execute_here(
        query, variable_values=variables, context_value=context, operation_name=name
    )


def _outcome(
    schema: ProvenanceSchema,
    settings: QuerySettings,
    reader: FakeReader,
    document: tuple[str, dict[str, Any] | None, str | None],
) -> tuple[Any, ...]:
    """The answer, or what was raised (an operation name that names none)."""
    try:
        return _answer(_run(schema, settings, reader, document))
    except Exception as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d[0][:40] for d in DOCUMENTS])
def test_the_short_way_answers_as_the_whole_pipeline(
    document: tuple[str, dict[str, Any] | None, str | None],
) -> None:
    whole, settings = _schema(graphql_document_cache=0)
    cached, _ = _schema()
    reader = story()
    expected = _outcome(whole, settings, reader, document)
    answers = [_outcome(cached, settings, reader, document) for _ in range(3)]
    assert answers == [expected] * 3
    assert whole.document_cache.hits == 0


def test_a_valid_known_text_takes_the_short_way_and_a_plain_resolver_reads_with_no_loop() -> None:
    schema, settings = _schema()
    loops: list[bool] = []
    reader = story()
    lineage = reader.lineage

    def noting(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
            loops.append(True)
        except RuntimeError:
            loops.append(False)
        return lineage(*args, **kwargs)

    reader.lineage = noting  # type: ignore[method-assign]
    document = ('{ lineage(id: "run:r1") { nodes { id } } }', None, None)
    first, second, third = (_run(schema, settings, reader, document) for _ in range(3))
    assert first.errors is None and first.data == second.data == third.data
    # The first call parses and validates through strawberry's pipeline (its own loop); the
    # known text then runs through graphql-core with its resolvers plain: no loop at all.
    assert loops == [True, False, False]
    assert (schema.document_cache.misses, schema.document_cache.hits) == (1, 2)


def test_refused_texts_and_other_operation_types_go_the_whole_way() -> None:
    schema, settings = _schema()
    reader = story()
    refused = ('{ node(id: "run:r1") { nope } }', None, None)
    for _ in range(3):
        codes = {
            e.formatted["extensions"]["code"]
            for e in _run(schema, settings, reader, refused).errors
        }
        assert codes == {"graphql_validation_failed"}
    # Kept with its errors, refused from the cache, never counted as a short-way hit twice.
    assert (schema.document_cache.misses, schema.document_cache.hits) == (1, 2)
    context = make_context(settings, fake_readers(reader), FakeRecipes())
    query = "{ projects }"
    assert schema.execute_here(query, context_value=context).errors is None
    hits = schema.document_cache.hits
    # Only mutations allowed: the whole way refuses the query, as it would have the first time.
    with pytest.raises(InvalidOperationTypeError):
        schema.execute_here(
            query, context_value=context, allowed_operation_types=[OperationType.MUTATION]
        )
    assert schema.document_cache.hits == hits + 1  # counted once, by the whole way's lookup


@pytest.mark.parametrize(
    "broken", [RuntimeError("secret at /srv/app.py"), UnavailableError("down")]
)
def test_the_short_way_logs_and_shapes_errors_as_the_whole_way(
    broken: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    schema, settings = _schema()
    reader = story()

    def fails(*_: Any, **__: Any) -> Any:
        raise broken

    reader.search = fails  # type: ignore[method-assign]
    document = ('{ search(text: "x") { id } }', None, None)
    logged: list[list[str]] = []
    answers = []
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            answers.append(_answer(_run(schema, settings, reader, document)))
        logged.append([r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR])
    assert answers[0] == answers[1]
    assert schema.document_cache.hits == 1
    # An unexpected error is logged on the server (both ways), an expected one on neither.
    unexpected = isinstance(broken, RuntimeError)
    assert logged[0] == logged[1] and bool(logged[0]) is unexpected
    assert "secret" not in str(answers[1])


def test_every_extension_works_before_execution_or_is_applied_by_the_short_way() -> None:
    # The short way skips the extensions' hooks: an extension that acts while a document
    # executes (or adds to the answer) would be skipped silently. This fails when one is added.
    hooks = ("on_operation", "on_execute", "resolve", "get_results")
    known = {
        StructuredErrors: {"on_operation"},  # shapes the result's errors: the short way does
        MaxTokensLimiter: {"on_operation"},  # sets the parser's token limit: parsing only
        AddValidationRules: {"on_operation"},  # adds validation rules: validation only
    }
    schema, _ = _schema()
    kinds = [type(extension) for extension in schema.get_extensions()]
    assert StructuredErrors in kinds and MaxTokensLimiter in kinds
    for kind in kinds:
        overridden = {name for name in hooks if name in vars_of(kind, SchemaExtension)}
        assert overridden == known.get(kind, set()), (kind.__name__, overridden)


def vars_of(kind: type, base: type) -> set[str]:
    """The names `kind` defines itself or inherits from a class below `base`."""
    return {name for k in kind.__mro__ if k is not base and issubclass(k, base) for name in vars(k)}
