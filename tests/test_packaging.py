"""`pip install .` gives a working core and `lmdk` command without Streamlit; every package is in the wheel."""
from __future__ import annotations

import os
import re
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


# --------------------------------------------------------------------------- the hash-pinned locks (bash .ci/lock)
LOCKS = {"requirements.txt": "requirements.lock", "requirements-dev.txt": "requirements-dev.lock"}


def _logical_lines(path: Path) -> list[str]:
    """The lines of a requirements file or lock with comments dropped and backslash continuations joined."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.split(" #", 1)[0].strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _pins(source: Path) -> dict[str, str | None]:
    """Each third-party requirement of a human-edited requirements file and of those it includes with ``-r``, by
    canonical name: its ``==`` version, or None when it is not pinned."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, str | None] = {}
    for line in _logical_lines(source):
        if line.startswith("-r "):
            pins |= _pins(source.parent / line[3:].strip())
        elif not line.startswith("-"):  # `-e .` is the project itself, installed with --no-deps after the lock
            req = Requirement(line)
            exact = [s.version for s in req.specifier if s.operator == "=="]
            pins[canonicalize_name(req.name)] = exact[0] if len(exact) == 1 else None
    return pins


def _locked(lock: Path) -> dict[str, tuple[str, int]]:
    """Each package of a lock by canonical name: its version and how many sha256 hashes it carries. Fails on a line
    that is not ``name==version --hash=…`` (an editable, a path or a URL cannot be installed with --require-hashes)."""
    from packaging.utils import canonicalize_name

    entries: dict[str, tuple[str, int]] = {}
    for line in _logical_lines(lock):
        head, *options = line.split()
        assert "==" in head and not head.startswith("-") and "/" not in head and ":" not in head, \
            f"{lock.name}: {head!r} is not a name==version entry"
        name, version = head.split(";", 1)[0].split("==")
        entries[canonicalize_name(name.split("[", 1)[0])] = (version, sum(o.startswith("--hash=sha256:")
                                                                          for o in options))
    return entries


def _disagreements(source: Path, lock: Path) -> list[str]:
    """What keeps ``lock`` from being the lock of ``source``: a requirement missing from it or locked at another
    version than its pin, an entry without a hash, the project itself inside."""
    locked = _locked(lock)
    found = [f"{name}=={pin} is pinned in {source.name} but {lock.name} has "
             + (f"{name}=={locked[name][0]}" if name in locked else "no such package")
             for name, pin in _pins(source).items() if name not in locked or pin not in (None, locked[name][0])]
    found += [f"{lock.name}: {name}=={version} has no --hash" for name, (version, hashes) in locked.items()
              if not hashes]
    return found + ([f"{lock.name} holds the project itself"] if "lmdk" in locked else [])


@pytest.mark.parametrize("source", sorted(LOCKS))
def test_each_lock_holds_every_pin_of_its_requirements_file_with_hashes(source):
    """requirements*.txt are edited by hand and requirements*.lock generated from them (`bash .ci/lock`): a pin
    added or changed without regenerating the lock fails here, so the two cannot drift apart."""
    lock = ROOT / LOCKS[source]
    assert _disagreements(ROOT / source, lock) == [], "rerun `bash .ci/lock` after editing requirements*.txt"
    assert len(_locked(lock)) > len(_pins(ROOT / source))  # the dependencies of the pins are locked too
    header = lock.read_text(encoding="utf-8").splitlines()[:8]
    assert any("bash .ci/lock" in line for line in header), "the lock says how to regenerate it"


def test_the_test_lock_runs_the_app_lock_s_versions():
    """The suite tests the versions the app runs with: every package of requirements.lock is in
    requirements-dev.lock at the same version (and with the same hashes' count: the same files)."""
    app, dev = _locked(ROOT / "requirements.lock"), _locked(ROOT / "requirements-dev.lock")
    assert {name: entry for name, entry in app.items() if dev.get(name) != entry} == {}


def test_a_lock_that_disagrees_with_its_pins_is_caught(tmp_path):
    """The check itself: another version, a missing package, a hash-less entry and the project inside are found."""
    (tmp_path / "base.txt").write_text("# runtime\nnumpy==2.4.6  # arrays\nscipy\n", encoding="utf-8")
    (tmp_path / "dev.txt").write_text("-r base.txt\n-e .\npytest==9.0.3\n", encoding="utf-8")
    good = ("# lock\nnumpy==2.4.6 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n    # via -r base.txt\n"
            "scipy==1.17.1 \\\n    --hash=sha256:cc\npytest==9.0.3 \\\n    --hash=sha256:dd\n")
    lock = tmp_path / "dev.lock"
    lock.write_text(good, encoding="utf-8")
    assert _disagreements(tmp_path / "dev.txt", lock) == []
    assert _locked(lock) == {"numpy": ("2.4.6", 2), "scipy": ("1.17.1", 1), "pytest": ("9.0.3", 1)}
    lock.write_text(good.replace("numpy==2.4.6", "numpy==2.4.5"), encoding="utf-8")
    assert _disagreements(tmp_path / "dev.txt", lock) == [
        "numpy==2.4.6 is pinned in dev.txt but dev.lock has numpy==2.4.5"]
    lock.write_text(good.replace("pytest==9.0.3 \\\n    --hash=sha256:dd\n", ""), encoding="utf-8")
    assert _disagreements(tmp_path / "dev.txt", lock) == [
        "pytest==9.0.3 is pinned in dev.txt but dev.lock has no such package"]
    lock.write_text(good + "lmdk==0.2.0\n", encoding="utf-8")
    assert _disagreements(tmp_path / "dev.txt", lock) == ["dev.lock: lmdk==0.2.0 has no --hash",
                                                         "dev.lock holds the project itself"]
    lock.write_text(good + "-e file:///work/main\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not a name==version entry"):
        _locked(lock)


def test_every_install_command_installs_the_locks_with_their_hashes():
    """The README's two commands, the getting-started page, CI and the deployment image install the locks with
    --require-hashes and then the project without its dependencies, never the unhashed requirements files."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert ("pip install --require-hashes -r requirements.lock && pip install --no-deps -e . && streamlit run app.py"
            in readme)
    assert ("pip install --require-hashes -r requirements-dev.lock && pip install --no-deps -e . && python -m pytest"
            in readme)
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --require-hashes -r requirements-dev.lock && pip install --no-deps -e . && python -m pytest" \
        in run
    docker = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "--require-hashes -r requirements.lock" in docker and "pip install --no-cache-dir --no-deps ." in docker
    for path in ("README.md", "docs/getting-started.md", ".ci/run", "deploy/Dockerfile"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(r"pip install [^\n]*-r requirements(-dev)?\.txt", text), f"{path} installs unhashed"
