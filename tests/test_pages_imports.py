"""The page scripts (``pages/*.py``, ``app.py``) talk to the rest through public doors only (issue 51): they import
``ui`` (any of its modules), ``streamlit``, the standard library and the public names of ``lmdk`` — never numpy,
pandas, plotly or pydeck (tables, figures and maps are built by ``ui``, computations by ``lmdk``: core first, UI thin),
a private module (``lmdk.x._y``), a private name (``from lmdk.x import _y``) or a private attribute of what they
imported (``views._y``), and never an import hidden in ``importlib.import_module``."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*ROOT.glob("pages/*.py"), ROOT / "app.py"])
OURS = ("lmdk", "ui")  # their public names only
ALLOWED = frozenset({*OURS, "streamlit"}) | sys.stdlib_module_names
HIDDEN_IMPORTS = ("importlib.import_module", "import_module", "__import__")


def _private(name: str) -> bool:
    """A name with a leading underscore that is not a dunder (``__version__`` is public)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def offences(source: str) -> list[tuple[int, str]]:
    """(line, what) of every import of a page script that leaves the public doors: a package outside ``ALLOWED``,
    a relative import, a private module or name of lmdk or ui, a private attribute of a name imported from them, an
    import hidden in a call."""
    tree = ast.parse(source)
    bound: set[str] = set()  # local names bound to lmdk/ui modules or objects
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] not in ALLOWED:
                    found.append((node.lineno, f"import {alias.name} (not ui, streamlit, the standard library or "
                                               "lmdk)"))
                elif parts[0] in OURS:
                    if any(_private(p) for p in parts):
                        found.append((node.lineno, f"import {alias.name} (a private module)"))
                    bound.add(alias.asname or parts[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            parts = module.split(".")
            if node.level:
                found.append((node.lineno, f"from {'.' * node.level}{module} import … (a relative import)"))
                continue
            if parts[0] not in ALLOWED:
                found.append((node.lineno, f"from {module} import … (not ui, streamlit, the standard library or "
                                           "lmdk)"))
                continue
            if parts[0] not in OURS:
                continue
            if any(_private(p) for p in parts):
                found.append((node.lineno, f"from {module} import … (a private module)"))
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {module} import {alias.name} (a private name)"))
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in bound:
                found.append((node.lineno, f"{ast.unparse(node)} (a private name)"))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in HIDDEN_IMPORTS:
            found.append((node.lineno, f"{ast.unparse(node.func)}(…) (an import hidden in a call)"))
    return sorted(set(found))


def test_the_check_flags_each_kind_of_offence():
    bad = ("import numba\nfrom scipy import stats\nfrom .sibling import x\nimport lmdk.baselines._noise\n"
           "from lmdk.baselines._noise import noise\nfrom lmdk.schemes import _release, release\n"
           "from ui.session import cache\nimport lmdk.present.views as views\n"
           "def f():\n    from lmdk.priste import _grid\n    return views._timeline(cache._summary, release._x)\n"
           "import importlib\nimportlib.import_module('lmdk.schemes')\n"
           "import numpy as np\nimport pandas as pd\nfrom plotly import graph_objects\nimport pydeck\n")
    assert [(line, what.split(" (")[0]) for line, what in offences(bad)] == [
        (1, "import numba"), (2, "from scipy import …"), (3, "from .sibling import …"),
        (4, "import lmdk.baselines._noise"), (5, "from lmdk.baselines._noise import …"),
        (6, "from lmdk.schemes import _release"), (10, "from lmdk.priste import _grid"),
        (11, "cache._summary"), (11, "release._x"), (11, "views._timeline"),
        (13, "importlib.import_module(…)"), (14, "import numpy"), (15, "import pandas"),
        (16, "from plotly import …"), (17, "import pydeck")]


def test_the_check_passes_what_pages_may_do():
    good = ("from __future__ import annotations\nimport json\nfrom pathlib import Path\nimport math\n"
            "import streamlit as st\n"
            "import lmdk\nfrom lmdk.version import __version__\nfrom lmdk.present import views\n"
            "from ui import charts\nfrom ui.session import state\n"
            "views.timeline_values(st._private_to_streamlit, math.pi, lmdk.__all__, charts.PLOTLY_KW)\n"
            "class Page:\n    _cache = None\n\n    def run(self):\n        return self._cache\n")
    assert offences(good) == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_script_imports_only_through_public_doors(path):
    found = offences(path.read_text())
    assert not found, "\n".join(f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in found)
