"""Parsed and validated documents, cached by query text.

Clients send the same few query texts over and over (a dashboard, a CLI, an SDK helper), and
graphql-core spends more time parsing and validating such a text (the limit rules included)
than a cheap traversal spends in Neo4j. One schema has one fixed set of validation rules (they
follow from its settings), so a text's document and its validation errors are the same on
every call: this keeps both, for a bounded number of texts, least recently used out first.

Texts that do not parse are never kept (parsing stops at the token limit, so a bad text costs
little); texts that fail validation are kept with their errors and refused again from here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from graphql import DocumentNode, GraphQLError
from strawberry.extensions import SchemaExtension


@dataclass(frozen=True)
class Checked:
    document: DocumentNode
    errors: tuple[GraphQLError, ...]


class DocumentCache:
    """A bounded, thread-safe LRU of query text -> parsed document and validation errors."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"document cache size must be >= 0, got {size}")
        self.size = size
        self._items: OrderedDict[str, Checked] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, text: str) -> Checked | None:
        with self._lock:
            found = self._items.get(text)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(text)
            self.hits += 1
            return found

    def valid(self, text: str, usable: Callable[[DocumentNode], bool]) -> DocumentNode | None:
        """A known text's document when it passed validation and `usable` takes it (counted as
        a hit); None, and nothing counted, otherwise (the caller then goes through `get`)."""
        with self._lock:
            found = self._items.get(text)
            if found is None or found.errors or not usable(found.document):
                return None
            self._items.move_to_end(text)
            self.hits += 1
            return found.document

    def put(self, text: str, checked: Checked) -> None:
        if self.size == 0:
            return
        with self._lock:
            self._items[text] = checked
            self._items.move_to_end(text)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def extension(self) -> Callable[[], SchemaExtension]:
        """A factory of the per-request extension that reads and fills this cache."""
        return lambda: _Cached(self)


class _Cached(SchemaExtension):
    """Supplies a known text's document before parsing and its errors before validation;
    keeps a new text's document and errors once validation has run."""

    def __init__(self, cache: DocumentCache) -> None:
        self._cache = cache
        self._hit: Checked | None = None

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        text = context.query
        if text and context.graphql_document is None:
            self._hit = self._cache.get(text)
            if self._hit is not None:
                context.graphql_document = self._hit.document
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if self._hit is not None:
            context.pre_execution_errors = list(self._hit.errors)
        yield
        text, document = context.query, context.graphql_document
        if self._hit is None and text and document is not None:
            errors = context.pre_execution_errors or []
            self._cache.put(text, Checked(document, tuple(errors)))
