"""Reading the small text files a person declares landmarks in (``times:``, watchlists, landmark files)."""
from __future__ import annotations

from lmdk.errors import ParameterError


def read_text(path: str, what: str) -> str:
    """A small text file's content, with a clear error naming ``what`` it is when it cannot be read."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return handle.read(10_000_000)
    except OSError as exc:
        raise ParameterError(f"cannot read the {what} {path!r}: {exc.strerror or exc}") from None
