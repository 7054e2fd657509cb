"""The package imports on first use (issue 34): ``import lmdk`` and the Schemes & utility page leave out what they do
not need (the planner's scipy.optimize, the command line, the PriSTE and TPL packages), and every public name still
resolves to the object it names."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import lmdk

ROOT = Path(__file__).resolve().parents[1]


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` from the project's root."""
    done = subprocess.run([sys.executable, "-c", code + "\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_every_public_name_resolves_to_what_it_names():
    from lmdk import plan, schemes, tpl
    from lmdk.present import views

    assert set(lmdk.__all__) == set(lmdk._NAMES) | set(lmdk._MODULES)
    assert lmdk.release is schemes.release and lmdk.SCHEMES is schemes.SCHEMES
    assert lmdk.views is views and lmdk.tpl is tpl and lmdk.plan is plan
    assert lmdk.temporal_privacy_loss is tpl.temporal_privacy_loss
    assert set(lmdk.__all__) <= set(dir(lmdk))
    for name in lmdk.__all__:
        assert getattr(lmdk, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        lmdk.nothing_here  # noqa: B018


def test_the_experiments_package_names_resolve_too():
    import lmdk.experiments as experiments
    from lmdk.experiments import registry, runner, spec

    assert experiments.FIGURES is registry.FIGURES and experiments.FigureSpec is spec.FigureSpec
    assert experiments.run_figure is runner.run_figure and experiments.load_cached is runner.load_cached
    with pytest.raises(AttributeError):
        experiments.nothing_here  # noqa: B018


def test_import_lmdk_imports_none_of_its_subpackages():
    held = _modules_after("import lmdk")
    assert not {"lmdk.schemes", "lmdk.tpl", "lmdk.priste", "lmdk.plan", "numba", "scipy", "pandas"} & held


def test_the_schemes_page_opens_without_the_planner_the_command_line_or_priste():
    held = _modules_after(
        "import sys\nsys.path.insert(0, 'tests')\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=300)\n"
        "at.switch_page('pages/schemes_utility.py').run()\n"
        "assert not at.exception, at.exception\n"
        "assert any(s.key and s.key.endswith('w_eps') for s in at.select_slider), 'no ε slider'")
    assert "lmdk.schemes" in held  # the page did run its releases
    assert not {"lmdk.plan", "scipy.optimize", "lmdk.cli.main", "lmdk.experiments.runner", "lmdk.priste"} & held
