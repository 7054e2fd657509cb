"""User-provided text (file names, column names, cell values, messages quoting them) made inert for markdown."""
from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#!|<>~$:])")
_AUTOLINK = re.compile(r"(?i)(://|www\.|@)")  # GitHub-flavoured markdown links bare URLs, www. and e-mails
_WORD_JOINER = "\u2060"  # invisible; splits an autolink pattern without changing what the reader sees


def escape_markdown(text) -> str:
    """Backslash-escape markdown/HTML special characters and break bare URLs, so no link, image or HTML forms."""
    broken = _AUTOLINK.sub(lambda m: m.group(1)[0] + _WORD_JOINER + m.group(1)[1:], str(text))
    return _MARKDOWN.sub(r"\\\1", broken)
