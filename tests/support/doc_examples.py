"""The fenced examples of README.md and docs/*.md, and how an answer shown in a page is compared
with the answer the running stack gives (pure code: no I/O beyond reading the pages).

A page marks what the test must know with an HTML comment on the line before a fence:

    <!-- doc-test: skip: <why this example cannot run inside the test suite> -->

Every other block is an example: a `bash`/`sh`, `python`, `graphql` block runs; a `json` block
holding an event is checked against the contract; a block that follows a runnable block with
nothing but blank lines between (`json`, `http` starting with `HTTP/`, or an untagged block) is
its answer. In an answer, `…` stands for what must vary (ids, times, event ids): a JSON string
"…" matches any value, a string containing `…` matches any text there, a key "…" allows more
keys, a last list item "…" allows more items; in text, a line `…` matches any lines. A text
table's padding is not compared: a run of two or more spaces matches any such run, and a rule
of dashes any length of dashes (the suite's project names are longer than the demo's, so its
columns are wider).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RUNNABLE = {"bash", "sh", "python", "graphql"}
ELLIPSIS = "…"
_MARK = re.compile(r"<!--\s*doc-test:\s*skip:\s*(?P<why>.+?)\s*-->")
_FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")


@dataclass
class Block:
    """One fenced block of a page."""

    page: str
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    skip: str | None = None  # why it cannot run in the suite, when the page says so
    answer: Block | None = None
    is_answer: bool = False
    kind: str = field(default="")

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def read_blocks(root: Path, page: str) -> list[Block]:
    """The fenced blocks of `page` (a path relative to `root`), answers paired with their
    examples, each classified: `run`, `event`, `skip`, `answer`, or `unknown`."""
    lines = (root / page).read_text().splitlines()
    blocks: list[Block] = []
    gap_only_blank = False
    i = 0
    while i < len(lines):
        opened = _FENCE.match(lines[i])
        if not opened:
            if lines[i].strip():
                gap_only_blank = False
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        block = Block(page, i + 1, opened["lang"], "\n".join(lines[i + 1 : end]) + "\n")
        block.skip = _skip_mark(lines, i)
        previous = blocks[-1] if blocks else None
        if previous is not None and gap_only_blank and _answers(previous, block):
            previous.answer, block.is_answer = block, True
        blocks.append(block)
        gap_only_blank = True
        i = end + 1
    for block in blocks:
        block.kind = _kind(block)
    return blocks


def _skip_mark(lines: list[str], fence: int) -> str | None:
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    found = _MARK.search(lines[j]) if j >= 0 else None
    return found["why"] if found else None


def _answers(previous: Block, block: Block) -> bool:
    if previous.lang not in RUNNABLE or previous.is_answer or block.skip:
        return False
    return block.lang in ("json", "", "text") or (
        block.lang == "http" and block.text.startswith("HTTP/")
    )


def _kind(block: Block) -> str:
    if block.skip:
        return "skip"
    if block.is_answer:
        return "answer"
    if block.lang in RUNNABLE:
        return "run"
    if block.lang == "json" and _is_event(block.text):
        return "event"
    return "unknown"


def _is_event(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "event_type" in value and "payload" in value


# --- comparing answers --------------------------------------------------------------------


def json_mismatch(expected: Any, actual: Any, path: str = "$") -> str | None:
    """Where `actual` differs from `expected` (with `…` wildcards), or None when it matches."""
    if expected == ELLIPSIS:
        return None
    if isinstance(expected, str) and ELLIPSIS in expected:
        text = actual if isinstance(actual, str) else json.dumps(actual)
        return None if _wild(expected).fullmatch(text) else _differs(path, expected, actual)
    if isinstance(expected, dict):
        return _dict_mismatch(expected, actual, path)
    if isinstance(expected, list):
        return _list_mismatch(expected, actual, path)
    same = expected == actual and type(expected) is type(actual)
    return None if same else _differs(path, expected, actual)


def _dict_mismatch(expected: dict[str, Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, dict):
        return _differs(path, expected, actual)
    keys = [k for k in expected if k != ELLIPSIS]
    missing = [k for k in keys if k not in actual]
    extra = [k for k in actual if k not in expected]
    if missing or (extra and ELLIPSIS not in expected):
        return f"{path}: keys missing {missing}, unexpected {extra}"
    for key in keys:
        found = json_mismatch(expected[key], actual[key], f"{path}.{key}")
        if found:
            return found
    return None


def _list_mismatch(expected: list[Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, list):
        return _differs(path, expected, actual)
    open_end = (
        bool(expected) and isinstance(expected[-1], str) and expected[-1].startswith(ELLIPSIS)
    )
    items = expected[:-1] if open_end else expected
    if len(actual) < len(items) or (not open_end and len(actual) != len(items)):
        return f"{path}: {len(actual)} items where the page shows {len(expected)}"
    for n, item in enumerate(items):
        found = json_mismatch(item, actual[n], f"{path}[{n}]")
        if found:
            return found
    return None


def _differs(path: str, expected: Any, actual: Any) -> str:
    return f"{path}: the page shows {json.dumps(expected)}, the stack answered {json.dumps(actual)}"


def _wild(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split(ELLIPSIS)), re.S)


def text_mismatch(expected: str, actual: str) -> str | None:
    """Line by line, `…` inside a line matching any text and a line `…` any lines."""
    want = [_unpadded(line) for line in expected.strip("\n").splitlines()]
    got = [_unpadded(line) for line in actual.strip("\n").splitlines()]
    return None if _lines_match(want, got) else "the output differs from the page"


_PADDING = re.compile(r" {2,}")
_RULE = re.compile(r"-+")


def _unpadded(line: str) -> str:
    """A line with a table's padding collapsed: runs of spaces, and dashes in a rule line."""
    line = _PADDING.sub("  ", line.rstrip())
    return _RULE.sub("-", line) if line and not line.strip("- ") else line


def _lines_match(want: list[str], got: list[str]) -> bool:
    if not want:
        return not got
    head = want[0]
    if head.strip() == ELLIPSIS:
        return any(_lines_match(want[1:], got[n:]) for n in range(len(got) + 1))
    return bool(got) and bool(_wild(head).fullmatch(got[0])) and _lines_match(want[1:], got[1:])


def answer_mismatch(answer: Block, output: str) -> str | None:
    """Compare an example's output with the answer block the page shows beside it."""
    if answer.lang == "http":
        return http_mismatch(answer.text, output)
    if answer.lang == "json":
        try:
            actual = json.loads(output)
        except ValueError:
            return f"the output is not JSON: {output[:500]!r}"
        return json_mismatch(json.loads(answer.text), actual)
    return text_mismatch(answer.text, output)


def http_mismatch(expected: str, actual: str) -> str | None:
    """A response as `curl -i` prints it: status line, the headers the page shows, the body."""
    want_head, _, want_body = expected.replace("\r\n", "\n").partition("\n\n")
    got_head, _, got_body = actual.replace("\r\n", "\n").partition("\n\n")
    want_lines, got_lines = want_head.splitlines(), got_head.splitlines()
    if not got_lines or not got_lines[0].startswith("HTTP/"):
        return f"the output is not an HTTP response (use `curl -i`): {actual[:200]!r}"
    if want_lines[0].split()[1] != got_lines[0].split()[1]:
        return f"status: the page shows {want_lines[0]!r}, the stack answered {got_lines[:1]}"
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in got_lines[1:])}
    for line in want_lines[1:]:
        name, _, value = line.partition(":")
        got = headers.get(name.lower(), "")
        if not _wild(value.strip()).fullmatch(got):
            return f"header {name}: the page shows {value.strip()!r}, the stack sent {got!r}"
    if not want_body.strip():
        return None
    return answer_mismatch(Block("", 0, "json", want_body), got_body)


def shown_output(root: Path, page: str, example: str) -> str:
    """The output a page shows for the example block holding `example` (its answer), or the
    text of a block holding `example` itself when that block is the output (a page may show an
    output without its command). For stories seeded by tests: their test compares its output
    with this, the project's name mapped to the page's."""
    for block in read_blocks(root, page):
        if example in block.text:
            return block.answer.text if block.answer is not None else block.text
    raise LookupError(f"{page}: no block holds {example!r}")
