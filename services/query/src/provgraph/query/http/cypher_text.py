"""The Cypher endpoint's first filter: a static check of the query text.

It refuses early, with a clear reason, what must never reach the server (several statements,
LOAD CSV, CALL { } IN TRANSACTIONS, USE of another database, administration commands, and
procedures off the allowlist). It is a convenience, not the guarantee: a text filter can be
fooled by a lexer detail it does not share with the server, so everything it lets through is
checked again by what the server itself says the query is (`cypher_plan`) and run in a READ
transaction (`guard`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from provgraph.query.errors import ForbiddenQueryError, InvalidArgumentError, LimitExceededError
from provgraph.query.http.cypher_plan import allowed_procedure, refuse_procedure

MAX_QUERY_CHARS = 100_000

# Administration commands. TERMINATE TRANSACTIONS and SHOW ... even EXPLAIN as reads ("r");
# the plan check refuses them too.
_COMMANDS = frozenset(
    {"SHOW", "TERMINATE", "GRANT", "DENY", "REVOKE", "ALTER", "RENAME", "DEALLOCATE", "REALLOCATE"}
)
_PREFIXES = frozenset({"EXPLAIN", "PROFILE", "CYPHER"})
# Cypher ends a `//` comment at a carriage return as well as at a line feed.
_LINE_ENDS = "\r\n"


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
            i = _skip_line_comment(query, i)
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


def _skip_line_comment(query: str, start: int) -> int:
    ends = [at for at in (query.find(end, start) for end in _LINE_ENDS) if at >= 0]
    return min(ends) + 1 if ends else len(query)


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
        raise ForbiddenQueryError.because(
            f"{tokens[0].text.upper()} prefixes are not accepted (the endpoint EXPLAINs itself)"
        )
    for i in range(len(tokens)):
        _check_token(tokens, i, database)
    return query


def _check_token(tokens: Sequence[Token], i: int, database: str) -> None:
    token = tokens[i]
    if token.kind == "punct" and token.text == ";":
        reason = "several statements: send one query per request (no `;` between statements)"
        raise ForbiddenQueryError.because(reason)
    if _is_keyword(tokens, i, *_COMMANDS):
        reason = f"administration commands ({token.text.upper()} ...) are not accepted"
        raise ForbiddenQueryError.because(reason)
    if _is_keyword(tokens, i, "LOAD") and _next_word(tokens, i) == "CSV":
        raise ForbiddenQueryError.because(
            "LOAD CSV reads files or URLs from the server and is not accepted"
        )
    if _is_keyword(tokens, i, "TRANSACTIONS"):
        raise ForbiddenQueryError.because(
            "CALL { ... } IN TRANSACTIONS commits batches of its own and is not accepted"
        )
    if _is_keyword(tokens, i, "USE"):
        _check_use(tokens, i, database)
    elif _is_keyword(tokens, i, "CALL"):
        _check_call(tokens, i)


def _next_word(tokens: Sequence[Token], i: int) -> str:
    return tokens[i + 1].text.upper() if i + 1 < len(tokens) else ""


def _check_use(tokens: Sequence[Token], i: int, database: str) -> None:
    target = _dotted_name(tokens, i + 1)
    call = i + 2 < len(tokens) and tokens[i + 2].text == "("
    if call or target.lower() != database.lower():
        raise ForbiddenQueryError.because(
            f"USE {target or '...'}: only the lineage database {database!r} may be queried"
        )


def _check_call(tokens: Sequence[Token], i: int) -> None:
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if following is not None and following.kind == "punct" and following.text in "{(":
        return  # a subquery: CALL { ... } or CALL (x) { ... }; its clauses are checked too
    name = _dotted_name(tokens, i + 1)
    if not allowed_procedure(name):
        raise refuse_procedure(name)
