"""The query service's process entry.

Run it with ``python -m provgraph.query.app`` (on PROVGRAPH_QUERY_HOST:PORT) or
``uvicorn provgraph.query.app:create_app --factory --http HTTP`` where HTTP is
`provgraph.core.server.HTTP_PROTOCOL_OPTION` (JSON errors down to the HTTP parser, as
`provgraph services up` runs it); settings come from PROVGRAPH_* vars.
The app itself is `provgraph.query.http.app`.
"""

from __future__ import annotations

from provgraph.query.http.app import create_app as create_app  # the uvicorn factory
from provgraph.query.settings import QuerySettings


def serve(settings: QuerySettings | None = None) -> None:
    """Serve the query app on `query_host:query_port` until interrupted."""
    from provgraph.core.server import serve as serve_app  # uvicorn: only when serving

    settings = settings if settings is not None else QuerySettings()
    serve_app(create_app(settings), settings.query_host, settings.query_port)


if __name__ == "__main__":
    serve()
