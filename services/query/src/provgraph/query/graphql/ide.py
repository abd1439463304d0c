"""GraphiQL: which requests to `/graphql` get the IDE page, the one answer that needs no token,
and which page that is.

A browser opening the link sends no token (the IDE takes it in its headers pane and sends it
with every operation), so the page loads without one; every operation, by GET or POST, still
authenticates. The rule is strawberry's (`BaseView.should_render_graphql_ide`, checked against
it by the tests), so that the skip covers exactly the page strawberry renders and nothing it
would run.

The page is the GraphiQL built with the explorer (`make ui`: web/dist/graphiql.html, from the
`graphiql` npm package, its scripts served under /ui/assets/), which asks for the token and
sends it as a header. strawberry's own page loads its scripts from a CDN, which a machine
without one shows blank: it is served only while the explorer is not built.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request

GRAPHIQL_PAGE = "graphiql.html"

# What a browser's Accept header holds when it opens a page (strawberry renders for these).
_PAGE_TYPES = ("text/html", "*/*")


def serves_the_ide(request: Request) -> bool:
    """A GET without a `query` parameter that accepts HTML: the page, which runs nothing."""
    accept = request.headers.get("accept", "")
    return (
        request.method == "GET"
        and request.query_params.get("query") is None
        and any(kind in accept for kind in _PAGE_TYPES)
    )


def bundled_ide(ui_dir: Path | None) -> Path | None:
    """The GraphiQL page built with the explorer in `ui_dir`, or None when there is none."""
    if ui_dir is None:
        return None
    page = ui_dir / GRAPHIQL_PAGE
    return page if page.is_file() else None
