"""mkdocs hook: the CLI reference page, rendered from the ``lmdk`` argparse parsers at build time.

``docs/reference/cli.md`` holds the marker below; this hook replaces it with one section per command (usage,
description, arguments, examples), so the reference cannot drift from ``lmdk COMMAND --help``. Nothing here is
copied by hand: a new flag or command shows up on the next build. ``render_cli_reference()`` is plain Python
(no mkdocs import) so tests/test_docs_examples.py checks it without building the site.
"""
from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

MARKER = "<!-- lmdk-cli-reference -->"
ROOT = Path(__file__).resolve().parents[2]
USAGE_WIDTH = 88


def _import_root_first() -> None:
    """Document the checkout this file is in, not an lmdk installed elsewhere (an editable install may point away)."""
    if str(ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(ROOT))


def command_parsers() -> tuple[argparse.ArgumentParser, list[tuple[str, argparse.ArgumentParser]]]:
    """(the ``lmdk`` parser, [(command, its parser)]) in the order ``lmdk --help`` lists them."""
    _import_root_first()
    from lmdk.cli.main import build_parser

    top = build_parser()
    commands: list[tuple[str, argparse.ArgumentParser]] = []
    for action in top._actions:  # argparse keeps subcommands only on this private list
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                commands.append((name, _real_parser(name, parser)))
    return top, commands


def _real_parser(name: str, parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``lmdk experiments`` is a stub in the main parser (main() hands its arguments to the experiments runner):
    document the runner's own parser under that name."""
    if name == "experiments" and not parser.add_help:
        from lmdk.cli.experiments import build_parser as experiments_parser

        return experiments_parser("lmdk experiments")
    return parser


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    text = html.escape(" ".join(text.split()), quote=False)
    return text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def _usage(parser: argparse.ArgumentParser) -> str:
    """The usage line at a fixed width, so the page does not depend on the terminal that builds it."""
    formatter = parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip()


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()  # the same expansion of %(default)s and %% as --help prints
    return formatter._expand_help(action) if action.help else ""


def _invocation(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    return parser._get_formatter()._format_action_invocation(action)


def _exclusive(parser: argparse.ArgumentParser) -> dict[int, list[str]]:
    """id(action) → the other options of its mutually exclusive group."""
    out: dict[int, list[str]] = {}
    for group in parser._mutually_exclusive_groups:
        names = [a.option_strings[-1] for a in group._group_actions if a.option_strings]
        for action in group._group_actions:
            out[id(action)] = [n for n in names if action.option_strings and n != action.option_strings[-1]]
    return out


def render_parser(name: str, parser: argparse.ArgumentParser, level: int = 2) -> str:
    """One command as Markdown: heading, description, usage, arguments table, epilog."""
    hashes = "#" * level
    title = f"lmdk {name}" if name else "lmdk"
    lines = [f"{hashes} {title}", ""]
    if parser.description:
        lines += [" ".join(parser.description.split()), ""]
    lines += ["```text", _usage(parser), "```", ""]
    positionals, optionals = [], []
    others = _exclusive(parser)
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        text = _help(parser, action)
        if action.help == argparse.SUPPRESS:
            continue
        if action.required and action.option_strings:
            text += " (required)"
        if others.get(id(action)):
            text += " (not with " + ", ".join(others[id(action)]) + ")"
        row = f"| `{_invocation(parser, action)}` | {_cell(text)} |"
        (optionals if action.option_strings else positionals).append(row)
    for heading, rows in (("Arguments", positionals), ("Options", optionals)):
        if rows:
            lines += [f"**{heading}**", "", f"| {heading[:-1].lower()} | meaning |", "|---|---|", *rows, ""]
    if parser.epilog:
        if isinstance(parser.formatter_class, type) and issubclass(parser.formatter_class,
                                                                   argparse.RawDescriptionHelpFormatter):
            lines += ["```text", parser.epilog.strip("\n"), "```", ""]
        else:
            lines += [_cell(parser.epilog).replace("\\|", "|"), ""]
    return "\n".join(lines)


def render_cli_reference() -> str:
    """The whole reference: ``lmdk`` itself (commands, exit codes), then every command."""
    top, commands = command_parsers()
    parts = [render_parser("", top, level=2)]
    parts.append("| command | what it does |\n|---|---|")
    summaries = {a.dest: a.help for a in _choices_actions(top)}
    parts[-1] += "\n" + "\n".join(f"| [`lmdk {n}`](#lmdk-{n}) | {_cell(summaries.get(n) or '')} |"
                                 for n, _ in commands) + "\n"
    parts += [render_parser(name, parser) for name, parser in commands]
    return "\n".join(parts)


def _choices_actions(top: argparse.ArgumentParser) -> list[argparse.Action]:
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action._choices_actions)
    return []


def on_page_markdown(markdown: str, page, config, files) -> str:
    """mkdocs: put the generated reference where the marker is."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render_cli_reference())
