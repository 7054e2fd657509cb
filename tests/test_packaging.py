"""`pip install .` gives a working core and `lmdk` command without Streamlit; every package is in the wheel."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_lists_every_lmdk_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(project["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lmdk").rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found <= listed, f"add {sorted(found - listed)} to [tool.setuptools] packages in pyproject.toml"
    core = project["project"]["dependencies"]
    assert not any(d.lower().startswith(("streamlit", "plotly", "pydeck")) for d in core)
    assert "streamlit" in " ".join(project["project"]["optional-dependencies"]["app"])


def test_the_package_ships_its_type_information():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert (ROOT / "lmdk" / "py.typed").is_file()
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["lmdk"]


def _run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert done.returncode == 0, f"{cmd}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def _requires(wheel: Path) -> list[str]:
    """The wheel's own Requires-Dist (its METADATA), without the optional extras."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        lines = archive.read(metadata).decode().splitlines()
    return [line.split(":", 1)[1].strip() for line in lines
            if line.startswith("Requires-Dist:") and "extra ==" not in line]


def _only_these(requires: list[str], into: Path) -> set[str]:
    """Links in ``into`` to exactly the installed distributions that ``requires`` needs, recursively (the set pip
    would install, taken from this environment instead of resolved and unpacked again: ~70 s less); returns their
    names. Fails when this environment lacks one or has a version outside the range asked for."""
    import importlib.metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    into.mkdir()
    found: set[str] = set()
    todo = [Requirement(r) for r in requires]
    while todo:
        req = todo.pop()
        if req.marker and not req.marker.evaluate({"extra": ""}) or canonicalize_name(req.name) in found:
            continue
        dist = importlib.metadata.distribution(req.name)
        assert req.specifier.contains(dist.version, prereleases=True), f"{req} but {dist.version} is installed here"
        found.add(canonicalize_name(req.name))
        for top in {f.parts[0] for f in dist.files or []} - {"..", "__pycache__"}:  # packages, modules, dist-info
            if not (into / top).exists():
                (into / top).symlink_to(dist.locate_file(top))
        todo += [Requirement(r) for r in dist.requires or []]
    return found


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs_without_streamlit(tmp_path):
    """The wheel holds every package and the sample data and none of the app; installed with nothing but its
    declared dependencies (pip check finds them complete), the core and the lmdk command work, without
    Streamlit."""
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(wheels)])
    (wheel,) = wheels.glob("lmdk-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "lmdk/_assets/hue_residential_1.csv" in names and "lmdk/_assets/hue_NOTICE.md" in names
    assert "lmdk/py.typed" in names  # PEP 561: importers' type checkers read lmdk's annotations
    assert not any(n.startswith(("ui/", "pages/", "tests/")) for n in names)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    py, bindir = venv / "bin" / "python", venv / "bin"
    # the dependencies: exactly the closure of the wheel's Requires-Dist, made visible by a .pth file
    deps = _only_these(_requires(wheel), tmp_path / "deps")
    assert {"numpy", "pandas", "scipy"} <= deps and not deps & {"streamlit", "plotly", "pydeck"}
    site = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip()
    (Path(site) / "lmdk_test_deps.pth").write_text(str(tmp_path / "deps") + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(py)]  # this pip, run on the venv's interpreter
    _run([*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)])
    _run([*pip, "check"])  # every requirement of lmdk, and of its requirements, is met
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    probe = ("import importlib.util, lmdk; "
             "assert importlib.util.find_spec('streamlit') is None, 'streamlit must not come with the core'; "
             "s = lmdk.sample('hue'); L = lmdk.landmarks.by_percentile(s.values, 0.2); "
             "r = lmdk.release(s.values, L, 'adaptive', 1.0, rng=0, "
             "protects=lmdk.relation.public_range(0, 25, 'kWh')); "
             "assert lmdk.satisfies_landmark_privacy(r.budgets, L, 1.0); print(lmdk.__file__)")
    done = _run([str(py), "-c", probe], cwd=outside, env=env)
    assert str(venv) in done.stdout  # the installed copy, not the checkout
    out = tmp_path / "released.csv"
    done = _run([str(bindir / "lmdk"), "release", "sample:hue", "--scheme", "uniform", "--epsilon", "1",
                 "--landmarks", "calendar:daily@01:00-06:00", "--range", "0", "25", "--out", str(out)],
                cwd=outside, env=env)
    lines = out.read_text().splitlines()
    table = [line for line in lines if not line.startswith("#")]
    assert "satisfies" in done.stderr and lines[0].startswith("# lmdk export") and len(table) == 1001
    assert any("Protected: any single hour's value" in line for line in lines)
