"""mkdocs hook: the API reference reads lmdk's docstrings, which name other objects the Sphinx way
(``:mod:`lmdk.data```, ``:func:`…```); show the name as code without the role prefix."""
from __future__ import annotations

import re

ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|obj|exc):(<code>)")


def on_page_content(html: str, page, config, files) -> str:
    """mkdocs: drop Sphinx role prefixes in front of inline code (they are noise in Markdown-rendered docstrings)."""
    return ROLE.sub(r"\1", html)
