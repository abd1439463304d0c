"""Every repository path and module a documentation page names exists in the tree.

A page names a path in an inline code span (`read/reader.py`, `tests/contracts/`), in a link
target (`[x](query.md)`) or, within a fenced block, from a top-level folder of the repository
(`schemas/examples/valid/`). A code span's path counts when it has a folder and a file suffix
(`ingest/http/events.py`), ends in a folder of two segments or more (`schemas/jsonschema/`),
is a glob (`tests/contracts/*.py`), or is a bare Python file (`kafka_source.py`); a path is
found when the tree holds it from the root or as the tail of a longer path (pages name files
from their part's `src/provgraph/`). A link resolves from the page's own folder. A dotted name
of a part (`provgraph.ingest.tools.replay`, `provgraph.ingest.app:create_app`) is found when
its longest module prefix exists and defines or imports the next name. Prose with slashes
(`val/loss`, `application/json`, `GET/POST`), files of the reader's own (`rejected.jsonl`,
`train.py` in a fenced example) and what a running stack writes (`.provgraph/env`) are not
paths of the repository.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]

# Named on purpose although (or because) the tree does not hold them.
ABSENT_ON_PURPOSE = {
    ("docs/architecture.md", "provgraph/__init__.py"),  # "no provgraph/__init__.py anywhere"
}

_PRUNED = {"node_modules", "dist", "build", "__pycache__"}  # installed or built, not the tree
_SUFFIX = r"(?:py|md|toml|ya?ml|json|jsonl|ts|tsx|js|mjs|graphql|sh|html|txt|csv|sql|png|svg)"
_SEG = r"[\w*-][\w.*-]*"
_PATH = re.compile(
    rf"(?<![\w.:/~$@{{<*-])(?:\./)?((?:{_SEG}/)*{_SEG}\.{_SUFFIX}|(?:{_SEG}/)+)(?![\w/])"
)
_MODULE = re.compile(r"(?<![\w./-])provgraph(?:[.:]\w+)+")
_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Tree:
    files: frozenset[str]
    dirs: frozenset[str]

    @property
    def tops(self) -> frozenset[str]:
        return frozenset(d for d in self.dirs if "/" not in d)

    def holds(self, path: str) -> bool:
        path = path.rstrip("/")
        if "*" in path:
            return any(
                fnmatch.fnmatch(f, path) or fnmatch.fnmatch(f, f"*/{path}") for f in self.files
            )
        return any(p == path or p.endswith(f"/{path}") for p in (*self.files, *self.dirs))

    def module(self, dotted: list[str]) -> str | None:
        """The file of module `provgraph.<dotted>` in some part, or None."""
        tail = "/".join(dotted)
        for root in (d for d in self.dirs if d.endswith("src/provgraph")):
            for candidate in (f"{root}/{tail}.py", f"{root}/{tail}/__init__.py"):
                if candidate in self.files:
                    return candidate
        return None

    @property
    def parts(self) -> frozenset[str]:
        roots = [d for d in self.dirs if d.endswith("src/provgraph")]
        return frozenset(d.rsplit("/", 1)[1] for d in self.dirs if d.rsplit("/", 1)[0] in roots)


def read_tree(root: Path) -> Tree:
    files, dirs = set(), set()
    for here, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in _PRUNED]
        rel = Path(here).relative_to(root).as_posix()
        prefix = "" if rel == "." else f"{rel}/"
        dirs.update(f"{prefix}{d}" for d in subdirs)
        files.update(f"{prefix}{n}" for n in names)
    return Tree(frozenset(files), frozenset(dirs))


@cache
def repo_tree() -> Tree:
    return read_tree(ROOT)


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _is_named_path(token: str, tree: Tree, *, fenced: bool) -> bool:
    if token.startswith((".", "~", "/")) or token.startswith("provgraph."):
        return False
    first = token.split("/", 1)[0]
    if fenced:
        return "/" in token and first in tree.tops
    if "/" not in token:
        return token.endswith(".py")
    if token.endswith("/") and token.count("/") < 2:
        return first in tree.tops
    return True


def stale_names(page: str, text: str, tree: Tree) -> list[str]:
    """`page:line: name` for each path or module `text` (the page `page`) names and `tree`
    does not hold."""
    found: list[tuple[int, str]] = []
    for fenced, pattern in ((False, _SPAN), (True, _FENCE)):
        for span in pattern.finditer(text):
            for m in _PATH.finditer(span.group(1)):
                token = m.group(1)
                if _is_named_path(token, tree, fenced=fenced) and not tree.holds(token):
                    found.append((_line(text, span.start(1) + m.start(1)), token))
    for link in _LINK.finditer(text):
        target = link.group(1).split("#", 1)[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
            if resolved.rstrip("/") not in tree.files | tree.dirs:
                found.append((_line(text, link.start(1)), target))
    for m in _MODULE.finditer(text):
        if (name := _missing_module(m.group(0), tree)) is not None:
            found.append((_line(text, m.start()), name))
    return [f"{page}:{n}: {name}" for n, name in found if (page, name) not in ABSENT_ON_PURPOSE]


def _missing_module(dotted: str, tree: Tree) -> str | None:
    names = re.split(r"[.:]", dotted)[1:]
    if not names or names[0] not in tree.parts:
        return None  # not a module of ours: a topic (`provgraph.events`), a distribution name
    n = len(names)
    while n > 1 and tree.module(names[:n]) is None:
        n -= 1
    if n == len(names):
        return None
    module = tree.module(names[:n])
    source = (ROOT / module).read_text() if module is not None else ""
    return None if re.search(_DEFINED.format(name=re.escape(names[n])), source, re.M) else dotted


# A module defines or imports a name: `def x`, `class x`, `x = ...`, `x: T`, `import ... x`,
# or `x,` alone on a line of a parenthesised import.
_DEFINED = (
    r"^\s*(?:async\s+def|def|class)\s+{name}\b|^\s*{name}\s*[:=]"
    r"|^\s*(?:from\s+\S+\s+)?import\s[^\n]*\b{name}\b|^\s+{name},?$"
)


@pytest.mark.parametrize("page", PAGES)
def test_every_path_a_page_names_exists(page: str) -> None:
    stale = stale_names(page, (ROOT / page).read_text(), repo_tree())
    assert not stale, "names that the tree does not hold:\n" + "\n".join(stale)


# What the checker flags and what it leaves alone, on the real tree.

STALE = [
    "`read/cypher.py`",
    "`query/read/cypher.py`",
    "`ingest/projector.py`",
    "`projector.py`",
    "`ingest/replay.py`",
    "`ingest/events.py`",
    "`services/ingest/src/provgraph/ingest/events.py`",
    "`ingest/openlineage/routes.py`",
    "`tests/*_contract.py`",
    "`tests/contracts/nothing_here/`",
    "[the page](no-such-page.md)",
    "`provgraph.ingest.kafka_source.read_log`",
    "`provgraph.ingest.projector.Projector`",
    "`provgraph.query.read.cypher`",
    "`python -m provgraph.ingest.replay`",
    "```bash\ncat schemas/examples/valid/no-such-event.json\n```",
]

PROSE = [
    "`val/loss`",
    "`application/json`",
    "`GET/POST /graphql`",
    "`raw/tokens`",
    "`rejected.jsonl`",
    "`.provgraph/env`",
    "`~/.cache/provgraph/`",
    "`plugins/`",
    "`POST /api/v1/lineage`",
    "the topic `provgraph.events.dlq`",
    "```bash\npython train.py --out runs/a/model.pt\n```",
    "[a section](#ids)",
]

NOW = [
    "`read/graph_cypher.py`",
    "`ingest/http/events.py`",
    "`ingest/app.py`",
    "`kafka_source.py`",
    "`tests/contracts/*.py`",
    "`schemas/jsonschema/`",
    "`services/ingest/src/provgraph/ingest/tools/log_reader.py`",
    "`provgraph.ingest.tools.log_reader.read_log_in_order`",
    "`provgraph.ingest.app:create_app`",
    "[architecture](architecture.md)",
    "```bash\ncat schemas/examples/valid/run.started.json\n```",
]


@pytest.mark.parametrize("named", STALE)
def test_a_path_or_module_that_is_gone_is_flagged(named: str) -> None:
    page = (ROOT / "docs/architecture.md").read_text()
    assert stale_names("docs/architecture.md", page, repo_tree()) == []
    text = f"{page}\n{named}\n"
    assert len(stale_names("docs/architecture.md", text, repo_tree())) == 1, named


@pytest.mark.parametrize("named", PROSE + NOW)
def test_prose_and_paths_that_exist_are_not(named: str) -> None:
    assert stale_names("docs/a.md", f"Some text: {named}\n", repo_tree()) == [], named


def test_a_path_counts_from_the_root_or_as_a_tail_and_a_link_from_its_page() -> None:
    tree = Tree(
        frozenset({"README.md", "docs/a.md", "svc/src/provgraph/q/read/reader.py"}),
        frozenset({"docs", "svc", "svc/src", "svc/src/provgraph", "svc/src/provgraph/q"}),
    )
    page = "`q/read/reader.py` `read/reader.py` [up](../README.md) [a](a.md)\n`read/cypher.py`\n"
    assert stale_names("docs/b.md", page, tree) == ["docs/b.md:2: read/cypher.py"]
    assert stale_names("docs/b.md", "[a](docs/a.md)", tree) == ["docs/b.md:1: docs/a.md"]
    assert stale_names("README.md", "[a](docs/a.md)", tree) == []
