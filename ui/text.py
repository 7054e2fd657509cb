"""User-provided text (file names, column names, cell values, messages quoting them) made inert for markdown."""
from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def escape_markdown(text) -> str:
    """Backslash-escape every markdown/HTML special character so links, images and HTML cannot form."""
    return _MARKDOWN.sub(r"\\\1", str(text))
