"""GraphiQL: which requests to `/graphql` get the IDE page, the one answer that needs no token.

A browser opening the link sends no token (the IDE takes it in its headers pane and sends it
with every operation), so the page loads without one; every operation, by GET or POST, still
authenticates. The rule is strawberry's (`BaseView.should_render_graphql_ide`, checked against
it by the tests), so that the skip covers exactly the page strawberry renders and nothing it
would run.
"""

from __future__ import annotations

from starlette.requests import Request

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
