"""The per-request context: the readers, the recipes, the caller's scope and fresh loaders."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import strawberry
from strawberry.fastapi import BaseContext

from provgraph.query.graphql.loaders import Loaders
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import Readers
from provgraph.query.recipes.service import Recipes
from provgraph.query.settings import QuerySettings

T = TypeVar("T")


class GraphContext(BaseContext):
    """What every resolver sees. Built once per request over the readers built once for the
    app, so DataLoader caches never leak between callers (or across scopes). `reader` is
    `readers.graph`, the read model most resolvers ask."""

    def __init__(
        self,
        settings: QuerySettings,
        readers: Readers,
        recipes: Recipes,
        scope: Scope,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.readers = readers
        self.reader = readers.graph
        self.recipes = recipes
        self.scope = scope
        self.loaders = Loaders(readers.graph, scope)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking read-model call off the event loop, so requests stay concurrent."""
        return await asyncio.to_thread(fn, *args, **kwargs)


Info = strawberry.Info[GraphContext, None]
