"""The `/graphql` endpoint: strawberry's FastAPI router, with provgraph's JSON errors.

strawberry answers a request it cannot read as GraphQL (a body that is not JSON, a content
type other than JSON, no `query`) in plain text. This router raises provgraph errors instead,
which the app renders as `{"error": {code, message, details}}` like every other HTTP error:
`malformed_json` (400), `unsupported_media_type` (415), `invalid_request` (400) for the rest.

The GraphiQL page it renders is the one built with the explorer when `ui_dir` holds it (see
`ide.py`), strawberry's otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, overload

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.websockets import WebSocket
from strawberry.fastapi import GraphQLRouter
from strawberry.http import GraphQLRequestData
from strawberry.http.parse_content_type import parse_content_type
from strawberry.types.unset import UNSET

from provgraph.core.errors import InvalidRequestError
from provgraph.query.errors import MalformedJsonError, UnsupportedMediaTypeError
from provgraph.query.graphql.context import GraphContext
from provgraph.query.graphql.ide import bundled_ide

JSON_TYPE = "application/json"


class ProvenanceRouter(GraphQLRouter[GraphContext, None]):
    """strawberry's router; every request it refuses is answered with a provgraph error."""

    ui_dir: Path | None = None  # the built explorer, whose GraphiQL page is served when there

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        # Looked for at each request: a build made while the service runs is used at once.
        page = bundled_ide(self.ui_dir)
        if page is None:
            return await super().render_graphql_ide(request)
        headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
        return HTMLResponse(page.read_text(encoding="utf-8"), headers=headers)

    def parse_json(self, data: str | bytes) -> Any:
        try:
            return self.decode_json(data)
        except json.JSONDecodeError as exc:
            where = {"line": exc.lineno, "column": exc.colno, "position": exc.pos}
            at = f"at line {exc.lineno} column {exc.colno}"
            raise MalformedJsonError(f"the body is not valid JSON: {exc.msg} {at}", where) from None
        except ValueError as exc:  # bytes that are not UTF-8 text
            raise MalformedJsonError(f"the body is not valid JSON: {exc}") from None

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        if request.method == "POST":
            content_type, _ = parse_content_type(request.content_type or "")
            if JSON_TYPE not in content_type:
                raise UnsupportedMediaTypeError(
                    f'POST /graphql takes {JSON_TYPE} ({{"query": ...}}), '
                    f"not {content_type or 'a body without Content-Type'}",
                    content_type=content_type or None,
                )
        return await super().parse_http_body(request)

    @overload
    async def run(
        self, request: Request, context: GraphContext = UNSET, root_value: None = UNSET
    ) -> Response: ...

    @overload
    async def run(
        self, request: WebSocket, context: GraphContext = UNSET, root_value: None = UNSET
    ) -> WebSocket: ...

    async def run(
        self,
        request: Request | WebSocket,
        context: GraphContext = UNSET,
        root_value: None = UNSET,
    ) -> Response | WebSocket:
        try:
            return await super().run(request, context, root_value)
        except HTTPException as exc:  # answered by strawberry as plain text otherwise
            if exc.status_code == InvalidRequestError.status:
                raise InvalidRequestError(exc.reason) from None
            raise StarletteHTTPException(exc.status_code, exc.reason) from None
