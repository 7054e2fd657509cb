"""The version of lmdk (its own module, so that ``lmdk/__init__.py`` can import it before the rest)."""

__version__ = "0.3.0"
