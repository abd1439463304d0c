"""The GraphQL layer: a thin strawberry schema over the read model.

`make_router(settings, reader, recipes)` is what the app mounts at /graphql.
"""

from provgraph.query.graphql.context import GraphContext, scope_for
from provgraph.query.graphql.schema import make_context, make_router, make_schema

__all__ = ["GraphContext", "make_context", "make_router", "make_schema", "scope_for"]
