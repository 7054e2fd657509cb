"""User-provided text (file names, column names, cell values, messages quoting them) made inert for markdown."""
from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")  # also $ (LaTeX) and : (emoji, :red[…] colours)
_AUTOLINK = re.compile(r"(?i)(://|www\.|@)")  # GitHub-flavoured markdown links bare URLs, www. and e-mails
_WORD_JOINER = "\u2060"  # invisible; splits an autolink pattern without changing what the reader sees


def escape_markdown(text) -> str:
    """Backslash-escape markdown/HTML special characters and break bare URLs, so no link, image or HTML forms."""
    broken = _AUTOLINK.sub(lambda m: m.group(1)[0] + _WORD_JOINER + m.group(1)[1:], str(text))
    return _MARKDOWN.sub(r"\\\1", broken)


def escaped_relation(relation):
    """``relation`` (an ``lmdk.relation.Relation``) with its user-given words — the unit and whose readings — escaped
    for markdown, so its ``label()`` and ``protects()`` can be shown in a caption; None stays None."""
    if relation is None:
        return None
    from dataclasses import replace

    who = relation.who if relation.who is None else escape_markdown(relation.who)
    return replace(relation, unit=escape_markdown(relation.unit), who=who)


def code(text) -> str:
    """``text`` as an inline code span shown exactly as written (no escape is needed inside one): fenced by more
    backticks than any run inside it, on one line (a line break would end the message's paragraph)."""
    flat = " ".join(str(text).splitlines()) or " "
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
