"""Where live classes are kept: ``LMDK_CLASS_URL`` (``sqlite:///PATH`` or ``postgresql://…``), by default an SQLite
file in the per-user data folder, so that one ``streamlit run app.py`` needs nothing else."""
from __future__ import annotations

import os
from pathlib import Path

from lmdk.classroom.model import ClassStore
from lmdk.errors import ParameterError

URL_ENV = "LMDK_CLASS_URL"
DATA_ENV = "LMDK_DATA_DIR"
FILE_NAME = "classes.db"
MAX_URL = 4096
FORMS = "sqlite:////absolute/path/classes.db (or sqlite:///relative.db) or postgresql://USER@HOST:PORT/DB"


def data_dir() -> Path:
    """The app's data folder: ``LMDK_DATA_DIR``, else ``$XDG_DATA_HOME/lmdk``, else ``~/.local/share/lmdk``;
    created (0700) when missing."""
    configured = os.environ.get(DATA_ENV, "").strip()
    if configured:
        folder, source = Path(configured).expanduser(), DATA_ENV
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "").strip()
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
        folder, source = base / "lmdk", "the default data folder"
    folder = folder.resolve()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(f"{source} {str(folder)!r} cannot be created ({exc.strerror}); set {DATA_ENV} to a "
                             "writable folder") from None
    if not folder.is_dir():
        raise ParameterError(f"{source} {str(folder)!r} is not a folder; set {DATA_ENV} to a writable folder")
    return folder


def default_url() -> str:
    """``LMDK_CLASS_URL`` if set, else ``sqlite:///<data_dir()>/classes.db``."""
    configured = os.environ.get(URL_ENV, "").strip()
    if configured:
        return configured
    return f"sqlite:///{data_dir() / FILE_NAME}"


def purged(store: ClassStore) -> ClassStore:
    """``store`` with the classes that expired while no server had it open already deleted, answers and all."""
    store.purge_expired()
    return store


def open_store(url: str | None = None) -> ClassStore:
    """The class store at ``url`` (None: :func:`default_url`), its tables created when missing; a URL of another
    form is a ParameterError naming ``LMDK_CLASS_URL`` and the accepted forms."""
    text = default_url() if url is None else url
    if not isinstance(text, str) or len(text) > MAX_URL:
        raise ParameterError(f"{URL_ENV}: give {FORMS}")
    text = text.strip()
    if text.startswith("sqlite:///"):
        path = text[len("sqlite:///"):]
        if not path or "\0" in path:
            raise ParameterError(f"{URL_ENV} sqlite:/// needs a file: give {FORMS}")
        from lmdk.classroom.sqlite import SqliteClassStore

        return purged(SqliteClassStore(Path(path).expanduser().resolve()))
    if text.startswith(("postgresql://", "postgres://")):
        from lmdk.classroom.postgres import PostgresClassStore

        return purged(PostgresClassStore(text))
    scheme = text.split("://", 1)[0][:20] if "://" in text else "a text without a scheme"
    raise ParameterError(f"{URL_ENV} ({scheme!r}) is not a class store URL: give {FORMS}")
