"""``python -m lmdk.experiments FIGURE``: the experiment runner's command line (:mod:`lmdk.cli.experiments`).

An entry point, like ``lmdk.__main__``: the one module of lmdk.experiments that imports the command line (the
import contracts in pyproject.toml name it as their only exception)."""
import sys

from lmdk.cli.experiments import main

sys.exit(main())
