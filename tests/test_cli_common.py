"""One command line (issue 55): lmdk release, population and aggregate share their policy flags and write their
summary the same way; no abbreviations; ISO 8601 times with an offset; every exit code in --help; --version as the
CHANGELOG says; --quiet is quiet; every error names its fix."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest

import lmdk
from lmdk import cli
from lmdk.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("--scheme", "--epsilon", "--landmarks", "--landmark-epsilon", "--config", "--tz", "--strict", "--seed",
          "--json")
DECLARED = "calendar:daily@18:00-22:00"
ISO_ROW = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d,")


def run(capsys, *argv):
    """(exit code, stdout, stderr) of one in-process ``lmdk`` call (argparse's errors exit 2)."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def subparsers():
    """{command: parser} of ``lmdk``."""
    parser = build_parser()
    return parser, next(a for a in parser._actions if a.choices and "release" in a.choices).choices


@pytest.fixture
def fleet(tmp_path) -> Path:
    """Three homes × 48 hours of the HUE sample, a long table (user, timestamp, value)."""
    hue = lmdk.sample("hue")
    frame = pd.concat([pd.DataFrame({"user": f"home{u}", "timestamp": hue.timestamps[48 * u:48 * (u + 1)],
                                     "value": hue.values[48 * u:48 * (u + 1)]}) for u in range(3)])
    path = tmp_path / "fleet.csv"
    frame.to_csv(path, index=False)
    return path


def data_rows(text: str) -> list[str]:
    """The rows of a CSV the command line wrote (without '#' lines and the header)."""
    return [line for line in text.splitlines() if line and not line.startswith("#")][1:]


# --------------------------------------------------------------------------- one set of flags
def test_release_population_and_aggregate_take_the_same_policy_flags():
    _, commands = subparsers()
    for name in ("release", "population", "aggregate"):
        flags = {flag: action.dest for action in commands[name]._actions for flag in action.option_strings}
        missing = [flag for flag in SHARED if flag not in flags]
        assert not missing, f"lmdk {name} lacks {missing}"
        assert all(flags[flag] == flag[2:].replace("-", "_") for flag in SHARED), name
    assert "--policies" in {f for a in commands["population"]._actions for f in a.option_strings}


def test_no_command_accepts_an_abbreviation(capsys, fleet, tmp_path):
    parser, commands = subparsers()
    assert parser.allow_abbrev is False and all(p.allow_abbrev is False for p in commands.values())
    code, _, err = run(capsys, "release", "sample:hue", "--schem", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--range", 0, 25)
    assert code == 2 and "unrecognized arguments: --schem" in err
    code, _, err = run(capsys, "population", fleet, "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--range", 0, 25, "--out", tmp_path / "out", "--schem", "skip")
    assert code == 2 and "--schem" in err and not (tmp_path / "out").exists()


def test_population_takes_the_policy_as_flags_and_writes_its_summary_to_stdout(capsys, fleet, tmp_path):
    code, out, err = run(capsys, "population", fleet, "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                         "--range", 0, 25, "--out", tmp_path / "released", "--json", "-", "--quiet")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["users"] == 3 and summary["scheme"] == "skip" and summary["epsilon"] == 1
    assert err == ""  # --quiet: nothing but errors and the output asked for


def test_population_flags_override_the_policy_file(capsys, fleet, tmp_path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"landmarks": DECLARED, "scheme": "adaptive", "epsilon": 2.0}), encoding="utf-8")
    code, _, err = run(capsys, "population", fleet, "--config", policy, "--scheme", "uniform", "--epsilon", 0.5,
                       "--range", 0, 25, "--out", tmp_path / "released", "--json", tmp_path / "summary.json",
                       "--quiet")
    assert code == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["scheme"] == "uniform" and summary["epsilon"] == 0.5


def test_population_without_a_policy_names_every_way_to_give_one(capsys, fleet, tmp_path):
    code, _, err = run(capsys, "population", fleet, "--scheme", "skip", "--range", 0, 25, "--out", tmp_path / "o")
    assert code == 2 and "--epsilon" in err and "--landmarks" in err and "--config" in err


def test_aggregate_reads_the_policy_file_as_population_does(capsys, fleet, tmp_path):
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"landmarks": DECLARED, "scheme": "skip", "epsilon": 1.0}), encoding="utf-8")
    code, out, err = run(capsys, "aggregate", fleet, "--statistic", "sum", "--range", 0, 25, "--config", policy,
                         "--out", tmp_path / "sum.csv", "--json", "-", "--quiet")
    assert code == 0, err
    assert json.loads(out)["scheme"] == "skip"
    code, _, err = run(capsys, "aggregate", fleet, "--statistic", "sum", "--range", 0, 25, "--scheme", "skip",
                       "--epsilon", 1)
    assert code == 2 and "--landmarks" in err and "calendar:" in err


def test_aggregate_refuses_a_private_landmark_selection_naming_the_fix(capsys, fleet):
    code, _, err = run(capsys, "aggregate", fleet, "--statistic", "sum", "--range", 0, 25, "--scheme", "skip",
                       "--epsilon", 1, "--landmarks", "percentile:20", "--landmark-epsilon", 0.5)
    assert code == 2 and "--landmark-epsilon" in err and "--allow-data-landmarks" in err


def test_release_writes_its_summary_with_json_and_keeps_summary_as_an_alias(capsys, tmp_path):
    argv = ["release", "sample:hue", "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED, "--range", 0, 25,
            "--out", tmp_path / "r.csv", "--quiet"]
    code, out, err = run(capsys, *argv, "--json", "-")
    assert code == 0 and err == ""
    assert json.loads(out)["scheme"] == "skip"
    code, _, _ = run(capsys, *argv, "--summary", tmp_path / "s.json")
    assert code == 0 and json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["landmarks"] > 0
    code, _, err = run(capsys, *argv[:-3], "--json", "-")  # no --out: the CSV goes to standard output
    assert code == 2 and "--out" in err


# --------------------------------------------------------------------------- times
def test_every_command_writes_iso_8601_times_with_an_offset(capsys, fleet, tmp_path):
    code, out, _ = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--range", 0, 25, "--quiet")
    assert code == 0 and data_rows(out)[0].startswith("2012-06-01T01:00:00-07:00,")
    code, out, _ = run(capsys, "loss", "sample:hue", "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--quiet")
    assert code == 0 and data_rows(out)[0].startswith("2012-06-01T01:00:00-07:00,")
    code, out, _ = run(capsys, "aggregate", fleet, "--statistic", "sum", "--range", 0, 25, "--scheme", "skip",
                       "--epsilon", 1, "--landmarks", DECLARED, "--quiet")
    assert code == 0 and all(ISO_ROW.match(row) for row in data_rows(out))
    assert data_rows(out)[0].startswith("2012-06-01T08:00:00+00:00,")  # 01:00 at −07:00, in UTC without --tz
    code, _, _ = run(capsys, "aggregate", fleet, "--statistic", "sum", "--range", 0, 25, "--scheme", "skip",
                     "--epsilon", 1, "--landmarks", DECLARED, "--out", tmp_path / "a.parquet", "--quiet")
    stamps = pd.read_parquet(tmp_path / "a.parquet")["timestamp"]
    assert code == 0 and str(stamps.dt.tz) == "UTC"  # typed, zone-aware


# --------------------------------------------------------------------------- help, version, quiet
def test_help_lists_every_exit_code(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for code in ("0 done", "2 bad input", "3 policy violates", "4 a ledger's cap", "5 the ledger cannot be reached"):
        assert code in text


def test_version_matches_the_changelog_and_the_package(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    printed = capsys.readouterr().out.strip()
    top = re.search(r"^## \[Unreleased\] — (\S+)|^## \[(\S+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                    flags=re.M)
    changelog = top.group(1) or top.group(2)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert printed == f"lmdk {changelog}" and project == changelog == lmdk.__version__


def test_population_quiet_prints_nothing_with_per_user_policies(capsys, fleet, tmp_path):
    table = tmp_path / "policies.csv"
    table.write_text(f"user,landmarks,epsilon,scheme\nhome0,{DECLARED},1.0,skip\n", encoding="utf-8")
    code, out, err = run(capsys, "population", fleet, "--policies", table, "--range", 0, 25,
                         "--out", tmp_path / "released", "--quiet")
    assert code == 0 and out == "" and err == ""


# --------------------------------------------------------------------------- every error names its fix
def test_strict_names_the_repeated_timestamps_and_what_resolves_them(capsys, tmp_path):
    path = tmp_path / "meter.csv"
    path.write_text("timestamp,value\n2024-01-01 00:00,1\n2024-01-01 01:00,2\n2024-01-01 01:00,3\n"
                    "2024-01-01 02:00,4\n", encoding="utf-8")
    code, _, err = run(capsys, "release", path, "--scheme", "skip", "--epsilon", 1, "--landmarks", "none",
                       "--range", 0, 25, "--strict")
    assert code == 2 and "2024-01-01T01:00:00" in err and "--strict" in err and "--tz" in err


def test_population_strict_names_the_rows_a_release_would_average_or_drop(capsys, fleet, tmp_path):
    frame = pd.read_csv(fleet)
    frame = pd.concat([frame, frame.head(1)], ignore_index=True)
    frame.loc[5, "value"] = None
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    path = tmp_path / "fleet.parquet"
    frame.to_parquet(path)
    code, _, err = run(capsys, "population", path, "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--range", 0, 25, "--out", tmp_path / "o", "--strict")
    assert code == 2 and "2012-06-01T08:00:00+00:00" in err and "home0" in err and "without a time or value" in err
    assert not (tmp_path / "o").exists()


def test_a_release_without_a_range_names_range(capsys):
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED)
    assert code == 2 and "--range LOW HIGH" in err


def test_a_missing_landmark_rule_suggests_a_declared_one(capsys):
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", 1, "--range", 0, 25)
    assert code == 2 and "calendar:" in err and "percentile" not in err


def test_a_refusal_of_every_user_names_no_summary_it_did_not_write(capsys, fleet, tmp_path):
    code, _, err = run(capsys, "population", fleet, "--scheme", "skip", "--epsilon", 1, "--landmarks", DECLARED,
                       "--range", 0, 25, "--out", tmp_path / "o", "--ledger", tmp_path / "ledger.jsonl",
                       "--dataset", "d", "--cap", 0.5)
    assert code == 4 and "withheld 3 users" in err
    assert "summary" not in err and not (tmp_path / "o").exists()
