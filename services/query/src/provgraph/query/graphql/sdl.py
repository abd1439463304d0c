"""The schema as SDL, the form the web explorer keeps a copy of (`web/schema.graphql`), whose
query documents are validated against it.

    python -m provgraph.query.graphql.sdl web/schema.graphql

writes the copy again; a unit test fails while the copy differs from the schema.
"""

from __future__ import annotations

import sys
from pathlib import Path

from provgraph.query.graphql.schema import make_schema
from provgraph.query.settings import QuerySettings

HEADER = (
    "# Generated from the query service's GraphQL schema (the strawberry schema served at"
    " /graphql).\n"
    "# Regenerate this file whenever that schema changes: the query-validation test checks"
    " every\n"
    "# query document of src/api/ against it.\n"
    "\n"
)


def sdl() -> str:
    """The SDL of the schema /graphql serves, with the header of the explorer's copy."""
    return HEADER + make_schema(QuerySettings()).as_str() + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m provgraph.query.graphql.sdl <file to write>", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(sdl(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
