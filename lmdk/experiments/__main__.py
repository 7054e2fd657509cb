"""``python -m lmdk.experiments FIGURE``: the experiment runner's command line."""
import sys

from lmdk.experiments.runner import main

sys.exit(main())
