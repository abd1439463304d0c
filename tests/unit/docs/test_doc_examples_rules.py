"""The rules by which a documentation page's answers are compared with the stack's."""

from __future__ import annotations

from pathlib import Path

from support.doc_examples import Block, answer_mismatch, json_mismatch, read_blocks, text_mismatch

PAGE = """# A page

```bash
echo hi
```

```
hi
```

<!-- doc-test: skip: needs a Docker engine -->
```bash
docker compose up
```

```graphql
{ node(id: "x") { id } }
```

Between them, prose: so this JSON is not the answer above.

```json
{"event_type": "run.started", "payload": {}}
```

```json
{"error": "a shape"}
```
"""


def test_blocks_are_paired_with_their_answers_and_classified(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(PAGE)
    blocks = read_blocks(tmp_path, "page.md")
    assert [(b.line, b.kind) for b in blocks] == [
        (3, "run"),
        (7, "answer"),
        (12, "skip"),
        (16, "run"),
        (22, "event"),
        (26, "unknown"),
    ]
    assert blocks[0].answer is blocks[1] and blocks[3].answer is None
    assert blocks[2].skip == "needs a Docker engine"
    assert blocks[0].where == "page.md:3"


def test_an_ellipsis_matches_what_must_vary_and_nothing_else() -> None:
    assert json_mismatch({"id": "…", "at": "2026-…Z"}, {"id": 7, "at": "2026-01-05T00:00Z"}) is None
    assert json_mismatch({"at": "2026-…Z"}, {"at": "2025-01-05Z"}) is not None
    assert json_mismatch({"a": 1}, {"a": 1, "b": 2}) is not None  # a key more is a change
    assert json_mismatch({"a": 1, "…": "…"}, {"a": 1, "b": 2}) is None
    assert json_mismatch({"a": 1, "…": "…"}, {"b": 2}) is not None  # but none less
    assert json_mismatch([1, "… and more"], [1, 2, 3]) is None
    assert json_mismatch([1, 2], [1, 2, 3]) is not None
    assert json_mismatch([1], [2]) == "$[0]: the page shows 1, the stack answered 2"
    assert json_mismatch({"n": 1}, {"n": 1.0}) is not None  # 1 and 1.0 print differently
    assert json_mismatch({"n": True}, {"n": 1}) is not None


def test_text_lines_match_with_ellipses_inside_and_as_whole_lines() -> None:
    assert text_mismatch("a\n…\nz\n", "a\nb\nc\nz\n") is None
    assert text_mismatch("a\n…\nz\n", "a\nz\n") is None
    assert text_mismatch("token pgt_…\n", "token pgt_abc\n") is None
    assert text_mismatch("a\nz\n", "a\nb\nz\n") is not None


def test_a_tables_padding_is_not_compared_but_its_cells_are() -> None:
    page = "run  name\n---  ----\n#1   demo-llm\n"
    wider = "run  name\n---  -----------------\n#1   t-docs-1234-llm\n"
    assert text_mismatch(page, wider.replace("t-docs-1234-llm", "demo-llm")) is None
    assert text_mismatch(page, "run  name\n---  ----\n#1   demo-llm   extra\n") is not None
    assert text_mismatch("a b\n", "a  b\n") is not None  # one space is not padding


def test_an_http_answer_checks_the_status_the_headers_shown_and_the_body() -> None:
    page = Block(
        "p.md", 1, "http", 'HTTP/1.1 202 Accepted\ncontent-type: application/json\n\n{"n": "…"}\n'
    )
    got = 'HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\nx: y\r\n\r\n{"n": 3}'
    assert answer_mismatch(page, got) is None
    assert answer_mismatch(page, got.replace("202 Accepted", "400 Bad Request")) is not None
    assert answer_mismatch(page, got.replace("application/json", "text/plain")) is not None
    assert "curl -i" in (answer_mismatch(page, '{"n": 3}') or "")
