"""The read-only Cypher endpoint's guard: refuse statically, EXPLAIN, then run read-only, capped.

Three layers, each enough on its own for the cases it covers (docs/cypher.md):
1. a static check of the text (outside strings and comments) refuses what must never reach
   the server: several statements, LOAD CSV, CALL { } IN TRANSACTIONS, USE of another database,
   administration commands, and any procedure not on a small read-only allowlist;
2. `EXPLAIN <query>` must report query type "r" (read); "w", "rw" and "s" are refused;
3. the query runs in a transaction opened in READ access mode (the server itself refuses
   writes there), with a timeout and a row cap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from provgraph.core.errors import ProvgraphError, UnavailableError
from provgraph.query.errors import ForbiddenQueryError, InvalidArgumentError, LimitExceededError
from provgraph.query.http.values import to_json

MAX_QUERY_CHARS = 100_000

# Read-only procedures (lower case). Everything else is refused: on Community the server cannot
# tell us which procedures write, and dbms.* / db.* hold admin and write procedures.
READ_ONLY_PROCEDURES = frozenset(
    {
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.schema.visualization",
        "db.schema.nodetypeproperties",
        "db.schema.reltypeproperties",
    }
)
# Administration commands. TERMINATE TRANSACTIONS even EXPLAINs as a read ("r"), so the static
# check is the one that stops them.
_COMMANDS = frozenset(
    {"SHOW", "TERMINATE", "GRANT", "DENY", "REVOKE", "ALTER", "RENAME", "DEALLOCATE", "REALLOCATE"}
)
_PREFIXES = frozenset({"EXPLAIN", "PROFILE", "CYPHER"})
_QUERY_TYPES = {
    "w": "it writes to the graph",
    "rw": "it reads and writes the graph",
    "s": "it changes the schema or is an administration command",
}


@dataclass(frozen=True)
class Token:
    """A lexical token: kind is word, quoted (`name`), string, number or punct."""

    kind: str
    text: str
    pos: int


def tokenize(query: str) -> list[Token]:
    """Tokens outside comments; string literals and quoted names are single tokens."""
    tokens: list[Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
        elif query.startswith("//", i):
            end = query.find("\n", i)
            i = n if end < 0 else end + 1
        elif query.startswith("/*", i):
            i = _skip_block_comment(query, i)
        elif ch in "'\"`":
            i = _quoted(query, i, tokens)
        elif ch.isalpha() or ch == "_":
            i = _run(query, i, tokens, "word", lambda c: c.isalnum() or c == "_")
        elif ch.isdigit():
            i = _run(query, i, tokens, "number", lambda c: c.isalnum() or c == ".")
        else:
            tokens.append(Token("punct", ch, i))
            i += 1
    return tokens


def _skip_block_comment(query: str, start: int) -> int:
    end = query.find("*/", start + 2)
    if end < 0:
        raise InvalidArgumentError("the query has an unterminated /* comment", position=start)
    return end + 2


def _run(
    query: str, start: int, tokens: list[Token], kind: str, accept: Callable[[str], bool]
) -> int:
    end = start + 1
    while end < len(query) and accept(query[end]):
        end += 1
    tokens.append(Token(kind, query[start:end], start))
    return end


def _quoted(query: str, start: int, tokens: list[Token]) -> int:
    """A string ('...' or "...", backslash escapes) or a quoted name (`...`, `` doubled)."""
    quote, i, text = query[start], start + 1, []
    while i < len(query):
        ch = query[i]
        if ch == "\\" and quote != "`":
            text.append(query[i : i + 2])
            i += 2
        elif ch == quote and quote == "`" and query.startswith("``", i):
            text.append("`")
            i += 2
        elif ch == quote:
            kind = "quoted" if quote == "`" else "string"
            tokens.append(Token(kind, "".join(text), start))
            return i + 1
        else:
            text.append(ch)
            i += 1
    raise InvalidArgumentError("the query has an unterminated quote", position=start)


def _is_keyword(tokens: Sequence[Token], i: int, *words: str) -> bool:
    """An unquoted word that is not a property (n.x), parameter ($x), label or map key."""
    token = tokens[i]
    if token.kind != "word" or token.text.upper() not in words:
        return False
    before = tokens[i - 1].text if i > 0 and tokens[i - 1].kind == "punct" else ""
    after = tokens[i + 1].text if i + 1 < len(tokens) and tokens[i + 1].kind == "punct" else ""
    return before not in (".", "$", ":") and after != ":"


def _dotted_name(tokens: Sequence[Token], i: int) -> str:
    """`a.b.c` (parts may be quoted) starting at tokens[i]."""
    parts: list[str] = []
    while i < len(tokens) and tokens[i].kind in ("word", "quoted"):
        parts.append(tokens[i].text)
        if i + 1 < len(tokens) and tokens[i + 1].text == "." and tokens[i + 1].kind == "punct":
            i += 2
        else:
            break
    return ".".join(parts)


def check_static(query: str, database: str) -> str:
    """Refuse what must never run; return the query without a trailing `;`."""
    if len(query) > MAX_QUERY_CHARS:
        raise LimitExceededError(
            f"the query is {len(query)} characters long, over {MAX_QUERY_CHARS}",
            max_chars=MAX_QUERY_CHARS,
        )
    tokens = tokenize(query)
    if not tokens:
        raise InvalidArgumentError("the query is empty")
    if tokens[-1].text == ";" and tokens[-1].kind == "punct":
        query, tokens = query[: tokens[-1].pos], tokens[:-1]
    if tokens and tokens[0].kind == "word" and tokens[0].text.upper() in _PREFIXES:
        _refuse(
            f"{tokens[0].text.upper()} prefixes are not accepted (the endpoint EXPLAINs itself)"
        )
    for i in range(len(tokens)):
        _check_token(tokens, i, database)
    return query


def _check_token(tokens: Sequence[Token], i: int, database: str) -> None:
    token = tokens[i]
    if token.kind == "punct" and token.text == ";":
        _refuse("several statements: send one query per request (no `;` between statements)")
    elif _is_keyword(tokens, i, *_COMMANDS):
        _refuse(f"administration commands ({token.text.upper()} ...) are not accepted")
    elif _is_keyword(tokens, i, "LOAD") and _next_word(tokens, i) == "CSV":
        _refuse("LOAD CSV reads files or URLs from the server and is not accepted")
    elif _is_keyword(tokens, i, "TRANSACTIONS"):
        _refuse("CALL { ... } IN TRANSACTIONS commits batches of its own and is not accepted")
    elif _is_keyword(tokens, i, "USE"):
        _check_use(tokens, i, database)
    elif _is_keyword(tokens, i, "CALL"):
        _check_call(tokens, i)


def _next_word(tokens: Sequence[Token], i: int) -> str:
    return tokens[i + 1].text.upper() if i + 1 < len(tokens) else ""


def _check_use(tokens: Sequence[Token], i: int, database: str) -> None:
    target = _dotted_name(tokens, i + 1)
    call = i + 2 < len(tokens) and tokens[i + 2].text == "("
    if call or target.lower() != database.lower():
        _refuse(f"USE {target or '...'}: only the lineage database {database!r} may be queried")


def _check_call(tokens: Sequence[Token], i: int) -> None:
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if following is not None and following.kind == "punct" and following.text in "{(":
        return  # a subquery: CALL { ... } or CALL (x) { ... }; its clauses are checked too
    name = _dotted_name(tokens, i + 1)
    if name.lower() not in READ_ONLY_PROCEDURES:
        allowed = ", ".join(sorted(READ_ONLY_PROCEDURES))
        _refuse(f"procedure {name or '?'} is not on the read-only allowlist ({allowed})")


def _refuse(reason: str) -> None:
    raise ForbiddenQueryError(f"refused: {reason}", reason=reason)


@dataclass(frozen=True)
class CypherResult:
    """The answer of the Cypher endpoint; `truncated` when the row cap was hit."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "truncated": self.truncated,
            "row_count": len(self.rows),
        }


class CypherGuard:
    """Runs a caller's Cypher only when it is read-only, bounded in time and in rows."""

    def __init__(
        self, driver: neo4j.Driver, database: str, *, timeout_s: float, row_cap: int
    ) -> None:
        self._driver = driver
        self._database = database
        self._timeout_s = timeout_s
        self._row_cap = row_cap

    def run(self, query: str, parameters: Mapping[str, Any]) -> CypherResult:
        """Check `query`, EXPLAIN it, and run it; every refusal is a ForbiddenQueryError."""
        text = check_static(query, self._database)
        try:
            return self._run_checked(text, dict(parameters))
        except (Neo4jError, DriverError) as exc:
            raise self._translate(exc) from None

    def _run_checked(self, text: str, parameters: dict[str, Any]) -> CypherResult:
        with self._session() as session:
            self._require_read(session, text, parameters)
            return self._fetch(session, text, parameters)

    def _session(self) -> neo4j.Session:
        # READ access mode: the server itself refuses writes, whatever the checks above missed.
        fetch = max(1, min(self._row_cap + 1, 1000))
        return self._driver.session(
            database=self._database, default_access_mode=neo4j.READ_ACCESS, fetch_size=fetch
        )

    def _require_read(self, session: neo4j.Session, text: str, parameters: dict[str, Any]) -> None:
        # Text built from the caller's query is what this endpoint is for; values stay parameters.
        explain = neo4j.Query("EXPLAIN " + text, timeout=self._timeout_s)
        query_type = session.run(explain, parameters).consume().query_type
        if query_type != "r":
            _refuse(_QUERY_TYPES.get(str(query_type), f"its query type is {query_type!r}"))

    def _fetch(self, session: neo4j.Session, text: str, parameters: dict[str, Any]) -> CypherResult:
        # An explicit transaction, rolled back: stopping at the cap ends the query server-side
        # instead of streaming the rest of the result to nobody.
        with session.begin_transaction(timeout=self._timeout_s) as tx:
            result = tx.run(text, parameters)
            columns = list(result.keys())
            rows: list[list[Any]] = []
            for record in result:
                if len(rows) == self._row_cap:
                    tx.rollback()
                    return CypherResult(columns, rows, truncated=True)
                rows.append([to_json(value) for value in record.values()])
            tx.rollback()
        return CypherResult(columns, rows, truncated=False)

    def _translate(self, exc: Neo4jError | DriverError) -> ProvgraphError:
        code = getattr(exc, "code", None) or ""
        message = getattr(exc, "message", None) or str(exc)
        if "TransactionTimedOut" in code:
            return LimitExceededError(
                f"the query ran longer than the {self._timeout_s:g} s limit",
                timeout_s=self._timeout_s,
            )
        if code == "Neo.ClientError.Statement.AccessMode":
            return ForbiddenQueryError(f"refused: the query writes ({message})", reason=message)
        if isinstance(exc, ClientError):
            return InvalidArgumentError(message, neo4j_code=code)
        return UnavailableError(f"Neo4j could not answer: {message}", neo4j_code=code)
