"""The architecture the code keeps by itself (issue 51): no import cycle between any two modules, no private name that
crosses a module boundary, a command line that never writes to its parsed arguments, no file over 600 lines, and
docs/ARCHITECTURE.md's table equal to the layers contract in pyproject.toml (``lint-imports`` checks the contract)."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600


def _contract(contract_id: str) -> dict:
    """The import-linter contract of pyproject.toml with this id."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["id"] == contract_id)


def _layers() -> list[list[str]]:
    """The layers contract, top first, each layer's packages in their written order."""
    return [[name.strip() for name in re.split(r"[|:]", layer)] for layer in _contract("layers")["layers"]]


def _independent(layer: int) -> bool:
    """Whether the packages of this layer (1 = top) are independent siblings (``a | b``) in the contract."""
    return ":" not in _contract("layers")["layers"][layer - 1]


# --- cycles -------------------------------------------------------------------------------------------------------

def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
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
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []


def test_no_import_cycle_between_any_two_modules():
    graph = grimp.build_graph("lmdk", "ui", cache_dir=None)
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    cycles = _cycles(edges)
    assert not cycles, "import cycles (imports inside functions count): " + "; ".join(" ↔ ".join(c) for c in cycles)


# --- private names ------------------------------------------------------------------------------------------------

def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_crossings(source: str) -> list[tuple[int, str]]:
    """(line, what) for each use of a private name that another module defines: ``from m import _x``, ``m._x`` or
    ``Cls._x`` on a name imported from lmdk or ui, and imports of private modules."""
    tree = ast.parse(source)
    imported: set[str] = set()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            ours = node.level > 0 or module.split(".")[0] in ("lmdk", "ui")
            if not ours:
                continue
            if any(_private(part) for part in module.split(".")):
                found.append((node.lineno, f"from {'.' * node.level}{module} import … (a private module)"))
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {'.' * node.level}{module} import {alias.name}"))
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ("lmdk", "ui"):
                    continue
                if any(_private(part) for part in alias.name.split(".")):
                    found.append((node.lineno, f"import {alias.name} (a private module)"))
                imported.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in imported:
                found.append((node.lineno, f"{ast.unparse(node)}"))
    return sorted(found)


def _package_of(path: Path) -> tuple[str, ...]:
    return path.relative_to(ROOT).parent.parts


def test_the_private_name_check_flags_each_kind_of_crossing():
    bad = ("from lmdk.schemes import _release, release\nimport lmdk.release_common as common\n"
           "from lmdk.data import RunConfig\nfrom lmdk.baselines._noise import x\nimport numpy as np\n"
           "common._window(1)\nRunConfig._dummies()\nnp._NoValue\nself_._ok = 1\n")
    assert [what for _, what in private_crossings(bad)] == [
        "from lmdk.schemes import _release", "from lmdk.baselines._noise import … (a private module)",
        "common._window", "RunConfig._dummies"]
    assert private_crossings("from lmdk.version import __version__\nimport lmdk\nlmdk.__all__\n") == []


def test_no_private_name_crosses_a_module_boundary():
    offenders = []
    for path in sorted([*ROOT.glob("lmdk/**/*.py"), *ROOT.glob("ui/**/*.py")]):
        for line, what in private_crossings(path.read_text()):
            # a private module (baselines/_noise.py) may be imported inside its own package
            if "(a private module)" in what and _package_of(path)[:2] == tuple(what.split()[1].split(".")[:2]):
                continue
            offenders.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not offenders, "private names used across modules (make them public or move them):\n" + "\n".join(offenders)


# --- the command line ---------------------------------------------------------------------------------------------

def argument_writes(source: str) -> list[int]:
    """Lines that assign to the parsed arguments (``args.x = …``, ``setattr(args, …)``, ``vars(args)[…] = …``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == "args":
                    lines.append(node.lineno)
                if (isinstance(part, ast.Subscript) and isinstance(part.value, ast.Call)
                        and ast.unparse(part.value) == "vars(args)"):
                    lines.append(node.lineno)
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("setattr", "args.__setattr__") and node.args \
                and ast.unparse(node.args[0]) == "args":
            lines.append(node.lineno)
    return sorted(set(lines))


def test_the_argument_write_check_flags_writes():
    assert argument_writes("args.x = 1\nsetattr(args, 'y', 2)\nvars(args)['z'] = 3\nargs.n += 1\ny = args.x\n") \
        == [1, 2, 3, 4]


@pytest.mark.parametrize("path", sorted(ROOT.glob("lmdk/**/*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_parsed_arguments_are_never_written_to(path):
    assert argument_writes(path.read_text()) == [], f"{path.relative_to(ROOT)} writes to the parsed arguments"


# --- sizes --------------------------------------------------------------------------------------------------------

def test_no_file_over_600_lines():
    files = [p for p in ROOT.rglob("*.py") if not {".git", "site", "build", ".venv"} & set(p.relative_to(ROOT).parts)]
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines: {long}"


# --- the documented layers ----------------------------------------------------------------------------------------

def _documented_rows() -> list[tuple[int, str, str]]:
    """(layer, package, may import) of each row of docs/ARCHITECTURE.md's layers table."""
    rows = []
    for line in (ROOT / "docs" / "ARCHITECTURE.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1].strip("`"), cells[3]))
    return rows


def may_import(layers: list[list[str]], layer: int, package: str) -> str:
    """The table's words for what a package of this layer (1 = top) may import: the layers below it, and not its
    independent siblings."""
    below = len(layers) - layer
    words = "nothing of lmdk or ui" if below == 0 else (
        f"layer {layer + 1}" if below == 1 else f"layers {layer + 1}–{len(layers)}")
    siblings = [f"`{s}`" for s in layers[layer - 1] if s != package and _independent(layer)]
    return words + (f"; not {', '.join(siblings)}" if siblings else "")


def test_the_architecture_page_is_the_layers_contract():
    layers = _layers()
    expected = [(i, package, may_import(layers, i, package)) for i, layer in enumerate(layers, 1) for package in layer]
    assert _documented_rows() == expected


def test_no_contract_ignores_an_import():
    """An import a contract ignores is an edge the architecture does not admit: move the code instead."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert [c["id"] for c in config["contracts"] if c.get("ignore_imports")] == []


def test_every_package_of_lmdk_has_a_layer():
    placed = {package for layer in _layers() for package in layer}
    children = {f"lmdk.{p.stem}" for p in (ROOT / "lmdk").glob("*.py") if p.stem not in ("__init__", "__main__")}
    children |= {f"lmdk.{p.parent.name}" for p in (ROOT / "lmdk").glob("*/__init__.py")}
    assert children - placed == set(), "place each new package in pyproject.toml's layers and docs/ARCHITECTURE.md"
    assert placed - children - {"ui"} == set()


def test_the_architecture_page_is_in_the_site_and_linked_from_the_readme():
    assert "ARCHITECTURE.md" in (ROOT / "mkdocs.yml").read_text()
    assert "docs/ARCHITECTURE.md" in (ROOT / "README.md").read_text()
