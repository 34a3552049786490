"""The import graph of the project: no cycles, imports only downward, one import name.

Every module of ``rules/``, ``parsers/`` and ``flows/`` (imported as ``zhuoji.rules``,
``zhuoji.parsers`` and ``zhuoji.flows``) is read with :mod:`ast`; every import in it counts,
at module level or inside a function, under ``if TYPE_CHECKING:`` too: ``import a.b``,
``from a import b`` (an import of the module ``a.b`` when ``b`` is one, else of ``a``),
relative imports, and ``importlib.import_module("a.b")`` with a literal name. The graph has
an edge from a module to each project module it imports; the tests then require:

- no import cycle between project modules (a strongly connected component of more than one
  module is printed as its cycles, each edge with its ``file:line``);
- imports only downward: ``rules`` and ``parsers`` import nothing of ``flows``, ``rules``
  nothing of ``parsers``; inside ``flows/``::

      cli > dashboard > ingest > {simulation, warehouse} > {audit, runtime, text}

  a package of ``flows/`` imports only the packages strictly below it, or itself
  (``audit``, ``runtime`` and ``text`` import no other package of ``flows/``);
- no import of the bare names ``rules``, ``parsers`` or ``flows`` (they are
  ``zhuoji.rules``, ``zhuoji.parsers`` and ``zhuoji.flows``) in the project, ``tests/``,
  ``bench/`` or ``scripts/``, code in string literals (``python -c`` programs) and shell
  scripts included;
- ``tests/`` imports nothing of ``bench/`` (shared support code lives in ``tests/support/``).
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rules", "parsers", "flows")  # the top-level folders, imported as zhuoji.<name>
BARE = frozenset(PACKAGES)

# Inside flows/: a package's rank; it may import only packages of a lower rank, or itself.
FLOWS_RANK = {
    "cli": 4,
    "dashboard": 3,
    "ingest": 2,
    "simulation": 1,
    "warehouse": 1,
    "audit": 0,
    "runtime": 0,
    "text": 0,
}
FLOWS_ORDER = "cli > dashboard > ingest > {simulation, warehouse} > {audit, runtime, text}"


@dataclass(frozen=True)
class Import:
    """One imported name, where it is written (``path:line``)."""

    path: Path
    line: int
    name: str  # the dotted name, absolute (relative imports resolved)
    names: tuple[str, ...]  # for ``from name import a, b``: a, b; else ()
    type_only: bool  # under ``if TYPE_CHECKING:``

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _python_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield path


@cache
def project_modules() -> dict[str, Path]:
    """``zhuoji.flows.cli.app`` -> ``flows/cli/app.py`` for every module of the project."""
    modules: dict[str, Path] = {"zhuoji": ROOT / "zhuoji" / "__init__.py"}
    for package in PACKAGES:
        for path in _python_files(ROOT / package):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(["zhuoji", *parts])] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports_in(
    tree: ast.AST, path: Path, package: str, line: int | None = None
) -> Iterator[Import]:
    """The imports of a parsed file; ``package`` resolves relative imports; ``line`` (for
    code inside a string literal) replaces the line numbers."""
    type_only_nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                type_only_nodes.update(id(n) for n in ast.walk(child))
    for node in ast.walk(tree):
        at = node.lineno if line is None and hasattr(node, "lineno") else (line or 0)
        type_only = id(node) in type_only_nodes
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(path, at, alias.name, (), type_only)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*anchor, *([base] if base else [])])
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            yield Import(path, at, base, names, type_only)
        elif (
            isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id == "__import__")
            )
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield Import(path, at, node.args[0].value, (), type_only)


def _package_of(path: Path) -> str:
    """The dotted package a file's relative imports start from."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if path.parent == ROOT / "zhuoji":
        return "zhuoji"
    prefix = ["zhuoji"] if parts[0] in PACKAGES else []
    return ".".join([*prefix, *parts[:-1]])


@cache
def file_imports(path: Path) -> tuple[Import, ...]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return tuple(_imports_in(tree, path, _package_of(path)))


@cache
def string_imports(path: Path) -> tuple[Import, ...]:
    """Imports written in a file's string literals that parse as Python (``-c`` programs,
    child scripts), each at the string's line; this file's own examples are not read."""
    if path == Path(__file__).resolve():
        return ()
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[Import] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if "import" not in node.value:
            continue
        try:
            inner = ast.parse(node.value)
        except (SyntaxError, ValueError):
            continue
        found.extend(_imports_in(inner, path, _package_of(path), line=node.lineno))
    return tuple(found)


def _targets(imp: Import) -> set[str]:
    """The project modules one import statement names."""
    modules = project_modules()
    out: set[str] = set()
    candidates = [f"{imp.name}.{n}" for n in imp.names] or [imp.name]
    for dotted in candidates:
        if dotted in modules:
            out.add(dotted)
            continue
        # ``from a.b import name`` or ``import a.b.c`` of a non-module: the longest module.
        parts = (imp.name if imp.names else dotted).split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        if parts:
            out.add(".".join(parts))
    return out


@cache
def graph(*, executed: bool = False) -> dict[str, dict[str, list[Import]]]:
    """module -> imported project module -> the import statements (file:line) of the edge;
    ``executed``: without the imports under ``if TYPE_CHECKING:`` (never run)."""
    edges: dict[str, dict[str, list[Import]]] = {m: {} for m in project_modules()}
    for module, path in project_modules().items():
        for imp in file_imports(path):
            if executed and imp.type_only:
                continue
            for target in _targets(imp):
                if target != module:
                    edges[module].setdefault(target, []).append(imp)
    return edges


def _components(edges: dict[str, dict[str, list[Import]]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                out.append(sorted(component))
    return out


def _shortest_cycle(
    edges: dict[str, dict[str, list[Import]]], start: str, members: set[str]
) -> list[str]:
    """The shortest cycle through ``start`` inside one component (start ... start)."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(edges[node]):
            if child not in members:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return [start]


def _edge_text(edges: dict[str, dict[str, list[Import]]], a: str, b: str) -> str:
    wheres = ", ".join(
        imp.where + (" (TYPE_CHECKING)" if imp.type_only else "") for imp in edges[a][b]
    )
    return f"    {a} -> {b}   [{wheres}]"


def cycles() -> list[str]:
    """Every import cycle of executed imports, as readable text: per component, the
    shortest cycle through each of its modules (duplicates removed), each edge with where
    it is written. An import under ``if TYPE_CHECKING:`` is never run, so it closes no
    cycle (it still counts for the layer order)."""
    edges = graph(executed=True)
    report: list[str] = []
    for component in _components(edges):
        if len(component) < 2:
            continue
        members = set(component)
        seen: set[tuple[str, ...]] = set()
        report.append(f"cycle among {len(component)} modules: {', '.join(component)}")
        for start in component:
            cycle = _shortest_cycle(edges, start, members)
            ring = cycle[:-1]
            turn = ring.index(min(ring))
            key = tuple(ring[turn:] + ring[:turn])
            if key in seen:
                continue
            seen.add(key)
            report.append("  " + " -> ".join([*key, key[0]]))
            report.extend(
                _edge_text(edges, a, b) for a, b in zip(key, [*key[1:], key[0]], strict=True)
            )
    return report


def _place(module: str) -> tuple[str, str | None]:
    """``zhuoji.flows.ingest.planning`` -> ("flows", "ingest"); ``zhuoji.rules.x`` ->
    ("rules", None); the package ``zhuoji`` -> ("", None)."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    sub = parts[2] if top == "flows" and len(parts) > 2 else None
    return top, sub


def layer_violations() -> list[str]:
    """Every import against the layer order, ``file:line: importer imports target (why)``."""
    edges = graph()
    bad: list[str] = []
    for module, path in project_modules().items():
        top, sub = _place(module)
        if top == "flows" and module != "zhuoji.flows" and sub not in FLOWS_RANK:
            bad.append(f"{_rel(path)}: {module} is in no package of the order {FLOWS_ORDER}")
        for target, imps in sorted(edges[module].items()):
            t_top, t_sub = _place(target)
            why = None
            if top in ("rules", "parsers") and t_top == "flows":
                why = f"{top} imports nothing of flows"
            elif top == "rules" and t_top == "parsers":
                why = "rules imports nothing of parsers"
            elif (
                top == "flows"
                and t_top == "flows"
                and sub in FLOWS_RANK
                and t_sub in FLOWS_RANK
                and sub != t_sub
                and FLOWS_RANK[t_sub] >= FLOWS_RANK[sub]
            ):
                why = f"flows/{sub} may not import flows/{t_sub}"
            if why is not None:
                for imp in imps:
                    kind = " (under TYPE_CHECKING)" if imp.type_only else ""
                    bad.append(f"{imp.where}: {module} imports {target}{kind} ({why})")
    return sorted(bad)


def _checked_files() -> Iterator[Path]:
    for folder in (*PACKAGES, "zhuoji", "tests", "bench", "scripts"):
        yield from _python_files(ROOT / folder)
    yield from sorted(p for p in ROOT.glob("*.py"))


BARE_LINE = re.compile(r"^\s*(?:import|from)\s+(rules|parsers|flows)(?:[.\s;]|$)")
BARE_IN_TEXT = re.compile(
    r"""(?:^|[\s;"'(])(?:import|from)\s+(rules|parsers|flows)(?:[.\s;"')]|$)"""
    r"""|-m\s+(rules|parsers|flows)\b"""
)


def bare_imports() -> list[str]:
    """Every import of a bare top-level ``rules``, ``parsers`` or ``flows``."""
    bad: list[str] = []
    for path in _checked_files():
        for imp in (*file_imports(path), *string_imports(path)):
            head = imp.name.split(".")[0]
            if head in BARE:
                bad.append(f"{imp.where}: imports {imp.name} (write zhuoji.{imp.name})")
    for path in sorted((ROOT / "scripts").rglob("*")):
        if path.suffix == ".py" or not path.is_file() or "__pycache__" in path.parts:
            continue
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found = BARE_IN_TEXT.search(text)
            if found:
                name = found.group(1) or found.group(2)
                bad.append(f"{_rel(path)}:{number}: imports {name} (write zhuoji.{name})")
    return sorted(set(bad))


def bench_imports_in_tests() -> list[str]:
    bad: list[str] = []
    for path in _python_files(ROOT / "tests"):
        for imp in (*file_imports(path), *string_imports(path)):
            if imp.name.split(".")[0] == "bench" or (imp.name == "" and "bench" in imp.names):
                bad.append(
                    f"{imp.where}: imports {imp.name or 'bench'} (tests import "
                    "nothing of bench/; shared code lives in tests/support/)"
                )
    return sorted(set(bad))


def _fail(title: str, lines: list[str]) -> str:
    return f"{title} ({len(lines)}):\n" + "\n".join(lines)


# --- the graph is read as intended -----------------------------------------------------


def test_every_module_is_read() -> None:
    modules = project_modules()
    assert {"zhuoji.rules.table", "zhuoji.parsers.read", "zhuoji.flows.cli.app"} <= set(modules)
    for sub in FLOWS_RANK:
        assert any(m.startswith(f"zhuoji.flows.{sub}.") for m in modules), sub
    assert len(modules) > 80


def test_imports_are_resolved_to_modules() -> None:
    edges = graph()
    # ``from zhuoji.flows.cli import audit`` is an import of the module, not the package.
    assert "zhuoji.flows.cli.audit" in edges["zhuoji.flows.cli.main"]
    # ``from zhuoji.rules.tiles import Tile`` is an import of zhuoji.rules.tiles.
    assert any("zhuoji.rules.tiles" in targets for targets in edges.values())


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """The cycle finder, the layer check and the name checks on small known inputs."""
    ring = {"a": {"b": []}, "b": {"c": []}, "c": {"a": []}, "d": {"a": []}}
    assert [c for c in _components(ring) if len(c) > 1] == [["a", "b", "c"]]
    assert _shortest_cycle(ring, "b", {"a", "b", "c"}) == ["b", "c", "a", "b"]
    code = (
        "import rules.table\nfrom flows import cli\nfrom zhuoji.rules import tiles\n"
        "def f():\n    from bench import _mutate\n"
        "X = 'import parsers.read as r; print(r)'\n"
    )
    tree = ast.parse(code)
    names = sorted(imp.name for imp in _imports_in(tree, ROOT / "x.py", "zhuoji"))
    assert names == ["bench", "flows", "rules.table", "zhuoji.rules"]
    assert BARE_IN_TEXT.search('python -c "import rules.version"')
    assert BARE_IN_TEXT.search("python -m flows.cli")
    assert not BARE_IN_TEXT.search('python -c "import zhuoji.rules.version"')
    assert _place("zhuoji.flows.ingest.planning") == ("flows", "ingest")


# --- the rules -------------------------------------------------------------------------


def test_no_import_cycle() -> None:
    found = cycles()
    groups = sum(line.startswith("cycle among") for line in found)
    assert not found, f"import cycles between project modules ({groups} groups):\n" + "\n".join(
        found
    )


def test_the_engine_core_has_no_import_circle() -> None:
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(found)


CORE_LAYERS = (
    ("zhuoji.rules.core.mechanic",),
    ("zhuoji.rules.core.declared",),
    ("zhuoji.rules.core.state",),
    ("zhuoji.rules.core.play",),
    (
        "zhuoji.rules.core.claims",
        "zhuoji.rules.core.play_on",
        "zhuoji.rules.core.setup",
        "zhuoji.rules.core.wall",
    ),
    ("zhuoji.rules.core.assemble",),
    ("zhuoji.rules.table",),
)
"""The engine core's layers, bottom first: the mechanic interface, a hand frozen by a
declaration (whose records the table's state holds), the table's state, the core rules,
the mechanics (none imports another), the assembler, the public face. A module runs
imports of lower layers only (an import under ``if TYPE_CHECKING:`` names a type)."""


def core_layer_violations() -> list[str]:
    rank = {m: i for i, layer in enumerate(CORE_LAYERS) for m in layer}
    edges = graph(executed=True)
    bad = []
    for module, i in sorted(rank.items()):
        for target, imps in sorted(edges[module].items()):
            if target in rank and rank[target] >= i:
                bad.extend(f"{imp.where}: {module} imports {target}" for imp in imps)
    return bad


def test_the_engine_core_imports_downwards() -> None:
    assert set(m for layer in CORE_LAYERS for m in layer) <= set(project_modules())
    found = core_layer_violations()
    assert not found, _fail("imports against the engine core's layers", found)


def test_imports_follow_the_layer_order() -> None:
    found = layer_violations()
    assert not found, _fail(f"imports against the layer order ({FLOWS_ORDER})", found)


def test_no_bare_top_level_names() -> None:
    found = bare_imports()
    assert not found, _fail("imports of bare rules/parsers/flows", found)


def test_tests_import_nothing_of_bench() -> None:
    found = bench_imports_in_tests()
    assert not found, _fail("tests importing bench/", found)
