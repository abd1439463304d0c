"""The per-request context: the readers, the recipes, the caller's scope and fresh loaders."""

from __future__ import annotations

import asyncio
import threading

import strawberry
from strawberry.fastapi import BaseContext

from provgraph.query.graphql.loaders import Loaders
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import Readers
from provgraph.query.recipes.service import Recipes
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings


class GraphContext(BaseContext):
    """What every resolver sees. Built once per request over the question services (and their
    readers) built once for the app, so DataLoader caches never leak between callers (or
    across scopes). `reader` is `readers.graph`, the read model most resolvers ask; `services`
    makes the question services over the readers, as the commands and the benchmarks make
    them.

    A resolver reads in place: a request runs whole on a worker thread
    (`ProvenanceSchema.execute`), so the service's event loop never waits on a read. Resolvers
    are plain functions unless they await a DataLoader; a known text whose resolvers are all
    plain is answered without running an event loop (`ProvenanceSchema._execute_valid`)."""

    def __init__(self, services: RecipeServices, scope: Scope) -> None:
        super().__init__()
        self.services = services
        self.settings: QuerySettings = services.settings
        self.readers: Readers = services.readers
        self.reader = services.readers.graph
        self.recipes: Recipes = services.recipes
        self.scope = scope
        self.loaders = Loaders(services.readers.graph, scope)


_threads = threading.local()


def request_loop() -> asyncio.AbstractEventLoop:
    """The calling thread's own event loop, made on first use and kept: a worker thread runs
    one request at a time on it, DataLoaders batching within the request as anywhere."""
    loop: asyncio.AbstractEventLoop | None = getattr(_threads, "loop", None)
    if loop is None or loop.is_closed():
        loop = _threads.loop = asyncio.new_event_loop()
    return loop


Info = strawberry.Info[GraphContext, None]
