"""Reading the small files a person declares landmarks in (``ics:``, ``times:``, watchlists, landmark files): a
regular file only, and never more than its cap (a device such as /dev/zero or a FIFO is refused before a read)."""
from __future__ import annotations

import os
import stat

from lmdk.errors import ParameterError

MAX_TEXT_BYTES = 10_000_000
"""Cap of a times file, watchlist or landmark file: a person's declared landmarks are far smaller."""


def read_bytes(path: str, cap: int, what: str) -> bytes:
    """At most ``cap`` bytes of the regular file ``path`` (ParameterError naming ``what`` when it cannot be read, is
    not a regular file or is larger: at most cap + 1 bytes are ever read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO's open must not wait for a writer
    except OSError as exc:
        raise ParameterError(f"cannot read the {what} {path!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ParameterError(f"the {what} {path!r} is not a regular file")
        raw = b"" if info.st_size > cap else os.read(fd, cap + 1)
        while 0 < len(raw) <= cap and (more := os.read(fd, cap + 1 - len(raw))):  # os.read may return less
            raw += more
    except OSError as exc:
        raise ParameterError(f"cannot read the {what} {path!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if info.st_size > cap or len(raw) > cap:  # larger, or grew while being read
        raise ParameterError(f"the {what} {path!r} is over {cap:,} bytes; give a smaller file")
    return raw


def read_text(path: str, what: str, cap: int = MAX_TEXT_BYTES) -> str:
    """A small text file's content (``read_bytes``), with a clear error naming ``what`` it is when it cannot be read
    or is not UTF-8 text."""
    try:
        return read_bytes(path, cap, what).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParameterError(f"the {what} {path!r} is not UTF-8 text; save it as UTF-8") from None
