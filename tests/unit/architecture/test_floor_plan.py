"""The floor plan, checked on the source itself: folders are import names, arrows point down.

Floors, top to bottom: CLI -> services (ingest, query) -> authz -> ground floor (core) -> the
SDK's transport -> the contract (schemas). The local launcher (infra) is a tool beside them that
only the CLI wires. Every import counts, including those inside functions.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]


def _listed_parts() -> list[str]:
    """The workspace's one list of parts (folders), as the Makefile installs and type-checks
    them: pyproject.toml's ``[tool.provgraph] parts``."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        parts: list[str] = tomllib.load(file)["tool"]["provgraph"]["parts"]
    return parts


def _import_name(part: str) -> str:
    """A part's name on the floor plan: its one package below ``<part>/src/provgraph/``."""
    (package,) = (
        p.name
        for p in (ROOT / part / "src/provgraph").iterdir()
        if p.is_dir() and not p.name.startswith(("_", "."))
    )
    return package


PARTS = _listed_parts()
# A listed part missing on disk is left out here: the test of the list names it.
SOURCE_ROOTS = {
    _import_name(part): ROOT / part / "src"
    for part in PARTS
    if (ROOT / part / "src/provgraph").is_dir()
}
# What each part may import besides itself: only parts on lower floors.
MAY_IMPORT = {
    "schemas": set(),
    "client": {"schemas"},
    "core": {"schemas", "client"},
    "authz": {"schemas", "client", "core"},
    "ingest": {"schemas", "client", "core", "authz"},
    "query": {"schemas", "client", "core", "authz"},
    "infra": {"schemas", "core"},
    "cli": {"schemas", "client", "core", "authz", "ingest", "query", "infra"},
}
DYNAMIC_LOADERS = {"import_module", "find_spec", "__import__", "spec_from_file_location"}


def _modules() -> Iterator[tuple[str, str, Path]]:
    """(part, module name, file) for every module of every source root."""
    for part, root in SOURCE_ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            yield part, ".".join(parts), path


def _imports(module: str, path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _part_of(name: str) -> str | None:
    pieces = name.split(".")
    if len(pieces) < 2 or pieces[0] != "provgraph":
        return None
    return pieces[1] if pieces[1] in SOURCE_ROOTS else "?"


def _parts_on_disk() -> set[str]:
    """Every folder one or two levels down that holds a source root of the namespace."""
    found = [*ROOT.glob("*/src/provgraph"), *ROOT.glob("*/*/src/provgraph")]
    return {path.parents[1].relative_to(ROOT).as_posix() for path in found}


def test_the_list_of_parts_is_what_is_on_disk() -> None:
    """A part added without the list is neither installed nor checked; one listed but gone
    breaks the install."""
    assert sorted(PARTS) == sorted(_parts_on_disk())
    assert len(set(PARTS)) == len(PARTS)


# The files that install or check the parts; each reads pyproject.toml's list instead of its own.
BUILD_FILES = ("Makefile", "infra/Dockerfile", ".ci/run")


@pytest.mark.parametrize("name", BUILD_FILES)
def test_no_build_file_writes_its_own_list_of_parts(name: str) -> None:
    """A second list goes stale the day a part is added: no line names more than two parts."""
    listing = [
        f"{number}: {line.strip()}"
        for number, line in enumerate((ROOT / name).read_text().splitlines(), start=1)
        if sum(
            re.search(rf"(?<![\w-])(?<![\w-]/){re.escape(part)}(?![\w/-])", line) is not None
            for part in PARTS
        )
        > 2
    ]
    assert listing == [], f"{name} lists parts itself: {listing}"


def test_every_part_is_on_the_floor_plan() -> None:
    assert set(SOURCE_ROOTS) == set(MAY_IMPORT)


def test_every_module_is_where_its_import_name_says() -> None:
    for part, module, path in _modules():
        assert module.startswith(f"provgraph.{part}"), f"{path} is {module}, outside its part"
        assert not (path.parents[len(module.split(".")) - 1] / "provgraph/__init__.py").exists()
    assert not (ROOT / "services/__init__.py").exists()


def test_the_installed_import_name_resolves_to_the_source_file() -> None:
    """What an IDE, mypy and a reader infer from the path is what Python imports."""
    wrong = []
    for _part, module, path in _modules():
        spec = importlib.util.find_spec(module)
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        if origin != path.resolve():
            wrong.append(f"{module}: {origin} instead of {path}")
    assert wrong == []


def test_no_import_points_up_or_sideways() -> None:
    wrong = []
    for part, module, path in _modules():
        for name in set(_imports(module, path)):
            target = _part_of(name)
            if target is None or target == part:
                continue
            if target not in MAY_IMPORT[part]:
                wrong.append(f"{module} imports {name} ({part} -> {target})")
    assert wrong == []


def test_no_module_is_loaded_by_a_string() -> None:
    found = []
    for _part, module, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = getattr(node, "attr", None) or getattr(node, "id", None)
            if name in DYNAMIC_LOADERS:
                found.append(f"{module}: {name}")
    assert found == []


def _module_graph() -> dict[str, set[str]]:
    modules = {module: path for _part, module, path in _modules()}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {name for name in _imports(module, path) if name in modules}
        graph[module] = {t for t in targets if t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _without_package_reexports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's __init__ re-exporting its own submodules is not a cycle between rooms."""
    return {
        module: {t for t in targets if not module.startswith(f"{t}.")}
        for module, targets in graph.items()
    }


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(_without_package_reexports(_module_graph())) == []


def test_the_checks_see_what_they_look_for() -> None:
    """The walker finds imports inside functions and relative ones (so a pass means something)."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    graph = _module_graph()
    assert "provgraph.schemas.envelope" in graph["provgraph.schemas.events.run"]
    assert len(graph) > 100
