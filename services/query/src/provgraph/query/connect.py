"""The readers of one command of the command line, over the Neo4j PROVGRAPH_NEO4J_* names.

Every query command reads through them (`read.readers.Readers`), built once per run here, with
every project readable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from provgraph.query.read.readers import Readers, neo4j_readers
from provgraph.query.recipes.services import RecipeServices
from provgraph.query.settings import QuerySettings


@contextmanager
def command_readers() -> Iterator[tuple[Readers, QuerySettings]]:
    """Every reader over the configured Neo4j, and the settings; the driver is closed after."""
    settings = QuerySettings()
    driver = settings.neo4j_driver()
    try:
        # Fails at once on a wrong password or an unreachable server, where a read would be
        # retried by the driver for half a minute first.
        driver.verify_connectivity()
        yield neo4j_readers(driver, settings.neo4j_database, settings), settings
    finally:
        driver.close()


@contextmanager
def command_services() -> Iterator[RecipeServices]:
    """The question services over `command_readers`, made as the service's resolvers make
    them (`recipes.services`)."""
    with command_readers() as (readers, settings):
        yield RecipeServices(settings, readers)
