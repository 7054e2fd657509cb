"""PriSTE figures (papers/001 §5: Figures 8–15, Table 2) as runner specs; the maths is in lmdk.priste."""
from __future__ import annotations
