"""The ``lmdk`` command line, one module per command side by side: ``release``, ``loss``, ``population``,
``aggregate``, ``plan``, ``audit``, ``ledger`` and ``experiments``; ``common``
holds what they share and ``main`` the parser. Every command parses, calls the core and prints.

Exit codes: 0 done; 2 bad input or arguments (one line naming the field and the fix); 3 the policy violates
(ε, L)-landmark privacy (Theorem 2) and ``--allow-violation`` was not given.
"""
from __future__ import annotations

from lmdk.cli.common import EXIT_INPUT, EXIT_OK, EXIT_VIOLATION  # noqa: F401 (the exit codes scripts test)
from lmdk.cli.main import build_parser, main  # noqa: F401 (the `lmdk` entry point is lmdk.cli:main)
