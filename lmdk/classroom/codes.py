"""A live class's names and secrets: the short class code students type, their anonymous ids, the lecturer's token.

Every secret comes from :mod:`secrets`. The code is short because students type it from a projector (it only finds
the class; it grants nothing); the lecturer's token (≥ 128 bits) is what controls the class, and only its SHA-256 is
stored. Every check refuses anything but the exact shape before looking at it further, so a hostile string (SQL,
unicode, megabytes) costs nothing and is never echoed back.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from lmdk.errors import ClassAccessError, ParameterError

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Upper-case letters and digits without the look-alikes 0/O and 1/I: 32 symbols, 5 bits each."""
CODE_LENGTH = 6
"""Characters of a class code: 32⁶ ≈ 10⁹ codes."""
STUDENT_BYTES = 12
"""Random bytes of a student id: 96 bits (16 URL-safe characters)."""
TOKEN_BYTES = 24
"""Random bytes of a lecturer token: 192 bits (32 URL-safe characters)."""
MAX_TYPED = 64
"""Longest text looked at as a typed class code (spaces and dashes included); anything longer is refused unread."""

_URLSAFE = re.compile(r"[A-Za-z0-9_-]+")
_STUDENT_LENGTHS = range(16, 65)
_TOKEN_LENGTHS = range(32, 129)
CODE_HELP = (f"a class code is {CODE_LENGTH} characters from A–Z and 2–9 (no 0, O, 1 or I), as shown on the "
             "lecturer's screen")


def new_code() -> str:
    """A random class code (:data:`CODE_LENGTH` symbols of :data:`ALPHABET`)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_student_id() -> str:
    """A random anonymous student id: 96 bits, URL-safe."""
    return secrets.token_urlsafe(STUDENT_BYTES)


def new_token() -> str:
    """A random lecturer token: 192 bits, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """The SHA-256 (hex) of a lecturer token: what the store keeps instead of the token."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def check_code(text) -> str:
    """The class code in ``text`` (case, spaces and dashes as typed are forgiven), or a ParameterError."""
    if not isinstance(text, str) or len(text) > MAX_TYPED:
        raise ParameterError(f"class code: {CODE_HELP}")
    code = "".join(text.split()).replace("-", "")
    if not code.isascii():  # before upper(): 'ß'.upper() is 'SS'
        raise ParameterError(f"class code: {CODE_HELP}")
    code = code.upper()
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise ParameterError(f"class code: {CODE_HELP}")
    return code


def check_student(text) -> str:
    """A well-formed student id (16–64 URL-safe characters, as :func:`new_student_id` makes), or a ParameterError."""
    if not isinstance(text, str) or len(text) not in _STUDENT_LENGTHS or not _URLSAFE.fullmatch(text):
        raise ParameterError("student id: not one this app made; open the class's join link again")
    return text


def token_matches(token, digest: str) -> bool:
    """Whether ``token`` is the lecturer token whose SHA-256 is ``digest`` (compared in constant time)."""
    if not isinstance(token, str) or len(token) not in _TOKEN_LENGTHS or not _URLSAFE.fullmatch(token):
        return False
    return hmac.compare_digest(token_digest(token), digest)


def check_token(token, digest: str, code: str) -> None:
    """Nothing when ``token`` is the class's lecturer token, else a ClassAccessError."""
    if not token_matches(token, digest):
        raise ClassAccessError(f"class {code}: only the lecturer who started it can do this (the lecturer token is "
                               "missing or wrong); open the class from the lecturer's own page")
