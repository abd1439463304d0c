"""The HTTP ingest service's process entry.

Run it with ``python -m provgraph.ingest.app`` (on PROVGRAPH_INGEST_HOST:PORT) or
``uvicorn provgraph.ingest.app:create_app --factory --http HTTP`` where HTTP is
`provgraph.core.server.HTTP_PROTOCOL_OPTION` (JSON errors down to the HTTP parser, as
`provgraph services up` runs it); settings come from PROVGRAPH_* vars.
The app itself is `provgraph.ingest.http.app`.
"""

from __future__ import annotations

from provgraph.ingest.http.app import create_app as create_app  # the uvicorn factory
from provgraph.ingest.settings import IngestSettings


def serve(settings: IngestSettings | None = None) -> None:
    """Serve the ingest app on `ingest_host:ingest_port` until interrupted."""
    from provgraph.core.server import serve as serve_app  # uvicorn: only when serving

    settings = settings if settings is not None else IngestSettings()
    app = create_app(settings)
    serve_app(app, settings.ingest_host, settings.ingest_port, log_level="info")


if __name__ == "__main__":
    serve()
