"""Every code block of the README, the CHANGELOG and docs/**/*.md runs here, so the documentation cannot rot.

Conventions for whoever writes the docs:

- ```python blocks run in the order of the page, all in one namespace per page, in a fresh folder per page that
  holds the fixtures below. The bundled sample (``lmdk.sample("hue")``) needs no file.
- ```console, ```bash, ```sh and ```shell blocks hold ``lmdk …`` commands, one per line (an optional ``$ ``
  prompt is dropped, a trailing ``\\`` continues the line, ``# …`` starts a comment). Each runs as
  ``python -m lmdk …`` (in this process, through runpy, so the suite does not pay an interpreter start per
  command) in the page's folder, after the blocks above it, and must exit 0.
- An HTML comment on the line before a block changes what happens to it:

  - ``<!-- docs-test: skip (the reason) -->``: not run, e.g. ``pip install``, ``streamlit run``, ``docker``.
    The reason is required.
  - ``<!-- docs-test: exit N -->``: its lmdk commands must exit with code N (a refusal is 3, bad input 2).
  - ``<!-- docs-test: raises NAME -->``: the python block must raise an exception of class NAME.
  - ``<!-- docs-test: file NAME -->``: not run; its text is written to NAME in the page's folder, for the
    blocks after it (a policy JSON, a landmark file).

- Blocks in any other language (text, json, none) are shown, not run.
- A shell block that neither holds only lmdk commands nor is marked skip fails: a command nobody runs rots.

Fixtures in every page's folder: ``meter.csv`` (the first 720 hourly readings of the bundled HUE sample, columns
``timestamp,value``) and ``fleet.csv`` (3 users × 240 hours of it, columns ``user,timestamp,value``).

Until the api branch is merged (``lmdk.release(..., protects=...)``), the pages' python blocks fail here: they
document the new API.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import runpy
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md",
                *(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)])
SHELL = {"console", "bash", "sh", "shell"}
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)\s*$")
MARK = re.compile(r"^<!--\s*docs-test:\s*(?P<what>skip|exit|raises|file)\b\s*(?P<arg>.*?)\s*-->\s*$")
NOISE_COMMANDS = ("release", "population", "plan", "audit")  # the commands that draw noise: say what ε protects
RELATION_FLAGS = ("--range", "--up-to", "--radius")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, text, first line (1-based) and the docs-test mark before it."""

    lang: str
    text: str
    line: int
    mark: str | None = None
    arg: str = ""


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order, each with the docs-test comment right before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        start = FENCE.match(lines[i].strip())
        if not start:
            i += 1
            continue
        fence, lang, body, j = start["fence"], start["lang"].lower(), [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j])
            j += 1
        mark = MARK.match(lines[i - 1].strip()) if i > 0 else None
        out.append(Block(lang, "\n".join(body) + "\n", i + 1, mark["what"] if mark else None,
                         mark["arg"] if mark else ""))
        i = j + 1
    return out


def commands(block: Block) -> list[list[str]]:
    """The lmdk commands of a shell block as argument lists (without the leading ``lmdk``)."""
    joined = re.sub(r"\\\n", " ", block.text)
    out = []
    for raw in joined.splitlines():
        line = raw.strip().removeprefix("$ ").strip()
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        if words[:1] != ["lmdk"]:
            raise AssertionError(f"line {block.line}: a {block.lang} block runs lmdk commands only, got {line!r}; "
                                 "mark it <!-- docs-test: skip (why) --> if it must not run")
        out.append(words[1:])
    return out


def run_lmdk(args: list[str]) -> tuple[int, str]:
    """``python -m lmdk ARGS`` in this process: (exit code, what it printed)."""
    printed = io.StringIO()
    saved = sys.argv
    sys.argv = ["lmdk", *args]
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            runpy.run_module("lmdk", run_name="__main__", alter_sys=False)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved
    return code, printed.getvalue()


@pytest.fixture(scope="module")
def fixture_files(tmp_path_factory) -> Path:
    """meter.csv and fleet.csv from the bundled HUE sample, made once."""
    import pandas as pd

    import lmdk

    folder = tmp_path_factory.mktemp("docs_fixtures")
    hue = lmdk.sample("hue")
    pd.DataFrame({"timestamp": hue.timestamps[:720], "value": hue.values[:720]}).to_csv(folder / "meter.csv",
                                                                                         index=False)
    pd.concat([pd.DataFrame({"user": f"home{u}", "timestamp": hue.timestamps[240 * u:240 * (u + 1)],
                             "value": hue.values[240 * u:240 * (u + 1)]}) for u in range(3)]
              ).to_csv(folder / "fleet.csv", index=False)
    return folder


def _page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_code_block_of_the_page_runs(page: Path, fixture_files: Path, tmp_path, monkeypatch):
    for name in ("meter.csv", "fleet.csv"):
        shutil.copy(fixture_files / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    where = _page_id(page)
    for block in blocks(page):
        label = f"{where}:{block.line}"
        if block.mark == "skip":
            assert block.arg, f"{label}: <!-- docs-test: skip --> needs its reason, e.g. skip (starts a server)"
            continue
        if block.mark == "file":
            assert block.arg, f"{label}: <!-- docs-test: file NAME --> needs the file's name"
            (tmp_path / block.arg).write_text(block.text, encoding="utf-8")
            continue
        if block.lang == "python":
            _run_python(block, namespace, label)
        elif block.lang in SHELL:
            expected = int(block.arg) if block.mark == "exit" else 0
            for args in commands(block):
                code, printed = run_lmdk(args)
                assert code == expected, f"{label}: lmdk {shlex.join(args)} exited {code}, not {expected}:\n{printed}"


def _run_python(block: Block, namespace: dict, label: str) -> None:
    """Run one python block in the page's namespace; with ``raises NAME`` it must raise that exception."""
    code = compile(block.text, label, "exec")
    with contextlib.redirect_stdout(io.StringIO()):
        if block.mark != "raises":
            exec(code, namespace)
            return
        try:
            exec(code, namespace)
        except Exception as exc:  # any exception: its class is compared with the expected one by name
            assert type(exc).__name__ == block.arg, f"{label}: raised {type(exc).__name__}, not {block.arg}: {exc}"
            return
    raise AssertionError(f"{label}: the block should raise {block.arg} but ran through")


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_noisy_example_says_what_epsilon_protects(page: Path):
    """No silent Δ = 1: every lmdk.release( in a python block passes protects=, and every lmdk command that draws
    noise gives --range, --up-to or --radius (or a --config that holds the relation)."""
    for block in blocks(page):
        label = f"{_page_id(page)}:{block.line}"
        if block.mark in ("skip", "raises", "file"):
            continue
        if block.lang == "python":
            for call in re.finditer(r"lmdk\.release\((?:[^()]|\([^()]*\))*\)", block.text):
                assert "protects=" in call.group(0), f"{label}: {call.group(0)[:60]}… does not say protects="
        elif block.lang in SHELL:
            for args in commands(block):
                if args[:1] and args[0] in NOISE_COMMANDS:
                    assert any(flag in args for flag in (*RELATION_FLAGS, "--config")), \
                        f"{label}: lmdk {shlex.join(args)} does not say what ε protects (--range/--up-to/--radius)"


def test_the_conventions_catch_what_they_promise(tmp_path):
    """The parser itself: marks attach to the next block; an unmarked non-lmdk shell line is refused."""
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n<!-- docs-test: skip (a server) -->\n```bash\nstreamlit run app.py\n```\n\n"
                    "```console\n$ lmdk ledger x.jsonl \\\n    --delta 1e-9  # total\n```\n\n"
                    "```bash\npip install lmdk\n```\n", encoding="utf-8")
    found = blocks(page)
    assert [(b.lang, b.mark, b.arg) for b in found] == [("bash", "skip", "(a server)"), ("console", None, ""),
                                                       ("bash", None, "")]
    assert commands(found[1]) == [["ledger", "x.jsonl", "--delta", "1e-9"]]
    with pytest.raises(AssertionError, match="lmdk commands only"):
        commands(found[2])


# --------------------------------------------------------------------------- the README and the generated reference
def _cli_reference():
    """docs/hooks/cli_reference.py, the mkdocs hook that renders the command-line reference."""
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "hooks" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_renders_every_command_and_flag():
    hook = _cli_reference()
    top, parsers = hook.command_parsers()
    page = hook.render_cli_reference()
    names = [name for name, _ in parsers]
    assert {"release", "population", "plan", "audit", "loss", "ledger", "experiments"} <= set(names)
    for name, parser in parsers:
        assert f"\n## lmdk {name}\n" in page, name
        for action in parser._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}" in page, f"lmdk {name} {flag} is missing from the reference"
    experiments = page[page.index("## lmdk experiments"):]
    assert "`--repetitions REPETITIONS`" in experiments.split("\n## ")[0]  # the runner's parser, not the stub
    assert hook.MARKER in (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")


def test_readme_lists_every_command_and_its_links_exist():
    hook = _cli_reference()
    _, parsers = hook.command_parsers()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `lmdk (\w+)` \|", readme, flags=re.M)
    assert sorted(listed) == sorted(name for name, _ in parsers)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme):
        if not re.match(r"[a-z]+://", target):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
    assert len(readme.splitlines()) <= 80, "the README is the front page: keep it short, details go to docs/"
