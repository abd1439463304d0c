"""The query service's process entry.

Run it with ``python -m provgraph.query.app`` (on PROVGRAPH_QUERY_HOST:PORT) or
``uvicorn provgraph.query.app:create_app --factory``; settings come from PROVGRAPH_* vars.
The app itself is `provgraph.query.http.app`.
"""

from __future__ import annotations

from provgraph.query.http.app import create_app as create_app  # the uvicorn factory
from provgraph.query.settings import QuerySettings


def serve(settings: QuerySettings | None = None) -> None:
    """Serve the query app on `query_host:query_port` until interrupted."""
    import uvicorn

    settings = settings if settings is not None else QuerySettings()
    uvicorn.run(create_app(settings), host=settings.query_host, port=settings.query_port)


if __name__ == "__main__":
    serve()
