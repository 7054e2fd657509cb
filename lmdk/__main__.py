"""``python -m lmdk``: the same as the ``lmdk`` command."""
import sys

from lmdk.cli import main

sys.exit(main())
