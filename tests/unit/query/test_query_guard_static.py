"""The text layer of the Cypher guard: what is refused before anything reaches Neo4j."""

from __future__ import annotations

import pytest

from provgraph.query.errors import ForbiddenQueryError, InvalidArgumentError, LimitExceededError
from provgraph.query.http.cypher_text import MAX_QUERY_CHARS, check_static, tokenize

DB = "neo4j"

REFUSED = {
    "two statements": "MATCH (n) RETURN n; MATCH (m) DETACH DELETE m",
    "statement after comment": "MATCH (n) RETURN n /* x */ ; CREATE (m)",
    "load csv": "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "load csv lower case": "load  csv with headers from $url as r return r",
    "in transactions": "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10 ROWS",
    "concurrent transactions": "CALL { RETURN 1 AS x } IN 2 CONCURRENT TRANSACTIONS RETURN x",
    "use system": "USE system SHOW USERS",
    "use other db": "USE other MATCH (n) RETURN n",
    "use graph function": "USE graph.byName('neo4j') MATCH (n) RETURN n",
    "use in subquery": "CALL { USE system RETURN 1 AS x } RETURN x",
    "dbms procedure": "CALL dbms.components()",
    "quoted dbms procedure": "CALL `dbms`.`listConfig`()",
    "db.createLabel": "CALL db.createLabel('Hacked')",
    "db.index": "CALL db.index.fulltext.createNodeIndex('x', ['L'], ['p'])",
    "procedure after read": "MATCH (n) WITH n LIMIT 1 CALL db.createProperty('p') RETURN n",
    "optional call": "OPTIONAL CALL dbms.info() YIELD id RETURN id",
    "show transactions": "SHOW TRANSACTIONS",
    "terminate": "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "show databases": "SHOW DATABASES",
    "grant": "GRANT ROLE admin TO neo4j",
    "explain prefix": "EXPLAIN MATCH (n) RETURN n",
    "profile prefix": "PROFILE MATCH (n) RETURN n",
    "cypher options": "CYPHER runtime=slotted MATCH (n) RETURN n",
    # Cypher ends a // comment at a carriage return too: what follows it is code.
    "load csv after a CR-ended comment": "WITH 1 AS a // x\rLOAD CSV FROM\n'http://h/' AS r "
    "RETURN r",
    "terminate after a CR-ended comment": "// x\rTERMINATE TRANSACTIONS\n'neo4j-transaction-1'",
    "call after a CR-ended comment": "WITH 1 AS a // \rCALL dbms.components() YIELD name\n"
    "RETURN name",
    "load csv split by a form feed": "LOAD\x0cCSV FROM 'http://h/' AS r RETURN r",
    "load csv split by a no-break space": "LOAD\u00a0CSV FROM 'http://h/' AS r RETURN r",
}


@pytest.mark.parametrize("query", REFUSED.values(), ids=REFUSED.keys())
def test_refused(query: str) -> None:
    with pytest.raises(ForbiddenQueryError) as caught:
        check_static(query, DB)
    assert caught.value.code == "forbidden_query"
    assert caught.value.details["reason"]


ACCEPTED = [
    "MATCH (n:Entity {project: $p}) RETURN n.id AS id ORDER BY id",
    "MATCH (n) RETURN n;",  # one trailing `;` is one statement
    "MATCH (n) WHERE n.name = 'a; CREATE (m)' RETURN n",  # `;` inside a string
    'MATCH (n) WHERE n.name = "LOAD CSV" RETURN n',
    "MATCH (n) // ; DELETE n\nRETURN n",  # inside comments
    "MATCH (n) /* CALL dbms.killQuery('x'); */ RETURN n",
    "MATCH (`a;b`) RETURN `a;b`",  # a quoted name
    "MATCH (n) RETURN n.show, n.transactions, n.use AS u",  # properties, not keywords
    "MATCH (n {use: 1, terminate: 2}) RETURN n",  # map keys
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.relationshipTypes()",
    "CALL db.propertyKeys()",
    "CALL db.schema.visualization()",
    "CALL { MATCH (n) RETURN count(n) AS c } RETURN c",
    "MATCH (n) CALL (n) { RETURN n.id AS id } RETURN id",
    "USE neo4j MATCH (n) RETURN n",
    "MATCH (n) WHERE n.note = 'it\\'s; fine' RETURN n",  # escaped quote
]


@pytest.mark.parametrize("query", ACCEPTED)
def test_accepted(query: str) -> None:
    assert check_static(query, DB).strip().endswith(("n", "label", "c", "id", "u", ")", "`"))


def test_trailing_semicolon_is_removed() -> None:
    assert check_static("RETURN 1 AS x ;  ", DB) == "RETURN 1 AS x "


def test_strings_comments_and_names_are_single_tokens() -> None:
    tokens = tokenize("MATCH (`x y`) WHERE x.a = 'b;c' /* ; */ RETURN 1 // ;")
    assert [(t.kind, t.text) for t in tokens] == [
        ("word", "MATCH"),
        ("punct", "("),
        ("quoted", "x y"),
        ("punct", ")"),
        ("word", "WHERE"),
        ("word", "x"),
        ("punct", "."),
        ("word", "a"),
        ("punct", "="),
        ("string", "b;c"),
        ("word", "RETURN"),
        ("number", "1"),
    ]


@pytest.mark.parametrize("query", ["", "   ", "// only a comment"])
def test_empty_query_is_invalid(query: str) -> None:
    with pytest.raises(InvalidArgumentError):
        check_static(query, DB)


@pytest.mark.parametrize("query", ["RETURN 'open", "RETURN 1 /* open", "MATCH (`open) RETURN 1"])
def test_unterminated_is_invalid(query: str) -> None:
    with pytest.raises(InvalidArgumentError):
        check_static(query, DB)


def test_oversized_query_is_refused() -> None:
    with pytest.raises(LimitExceededError):
        check_static("RETURN 1 " + " " * MAX_QUERY_CHARS, DB)
