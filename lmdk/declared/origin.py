"""How the positions of a ``file:`` landmark rule were marked, read from the file itself (issue 53).

The app's landmark file and a RunConfig say it in ``landmark_origin``: "declared" (given in advance: a calendar rule,
marks on the values-free timeline), "viewed" (marked while the chart showed the values being released) or "data" (a
detector read them). The last two, and such a file that does not say, depend on the values; a plain list of
positions someone wrote is declared as it stands.
"""
from __future__ import annotations

from lmdk.declared.files import read_text
from lmdk.errors import ParameterError

FILE_ORIGINS = {"data": "found by a detector that read the values",
                "viewed": "marked while the chart showed the values",
                "unsaid": "saved by the app or in a RunConfig without saying how they were marked "
                          "(landmark_origin), so they are read as marked while the chart showed the values"}
"""How a ``file:`` rule's positions were marked when its file says they may depend on the values (issue 53)."""


def file_origin(path: str) -> str:
    """How the positions of a ``file:`` rule were obtained: the file's ``landmark_origin`` ("declared", "viewed",
    "data") when its JSON object says; "unsaid" for a RunConfig (``data``/``events``) or the app's landmark file
    (``source_hash``) that does not (read as marked while viewing, as RunConfigs are); "declared" for a plain list of
    positions someone wrote."""
    import json

    text = read_text(path, "landmark file").lstrip("\ufeff")
    if not text.lstrip().startswith("{"):
        return "declared"
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ParameterError(f"the landmark file {path!r} is not valid JSON") from None
    if not isinstance(data, dict):
        return "declared"
    origin = data.get("landmark_origin")
    if origin is None:
        return "unsaid" if any(key in data for key in ("data", "events", "source_hash")) else "declared"
    if origin not in ("declared", "viewed", "data"):
        raise ParameterError(f"the landmark file {path!r}: landmark_origin must be 'declared', 'viewed' or 'data', "
                             f"not {origin!r}")
    return str(origin)
