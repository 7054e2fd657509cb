"""One read of Streamlit's config sections per config change, not six per script run (issue 56).

Every run, a fragment's included, sends a ``new_session`` message whose theme Streamlit builds by calling
``config.get_options_for_section`` for six theme sections; each call walks all of the ~250 config options under the
config lock. That was a fifth of the server's CPU of a class page's automatic refresh that found nothing new (py-spy,
100 students), and ~1 ms of every ε change. The sections change only when the config is parsed again or an option is
set, so their values are kept until one of those happens.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from streamlit import config

_MEMO: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


def _forget(*_args) -> None:
    """Drop every kept section (the config was parsed again or an option was set)."""
    with _LOCK:
        _MEMO.clear()


def _kept(read: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """``read`` (config.get_options_for_section) answered from the memo; each caller gets its own dict."""
    def sections(section: str) -> dict[str, Any]:
        """The options of ``section`` (without the section's prefix) and their values, as Streamlit's function."""
        with _LOCK:
            found = _MEMO.get(section)
        if found is None:
            found = read(section)
            with _LOCK:
                _MEMO[section] = found
        return dict(found)

    sections.lmdk_memo = True  # type: ignore[attr-defined]
    return sections


def _forgetting(set_option: Callable[..., None]) -> Callable[..., None]:
    """``set_option`` (config._set_option, behind st.set_option and the config file's parse) that also forgets."""
    def setting(*args, **kwargs) -> None:
        """Set the option, then drop the kept sections."""
        try:
            set_option(*args, **kwargs)
        finally:
            _forget()

    setting.lmdk_memo = True  # type: ignore[attr-defined]
    return setting


def install() -> None:
    """Keep config sections between config changes, once per process (later calls do nothing)."""
    if getattr(config.get_options_for_section, "lmdk_memo", False):
        return
    config.get_options_for_section = _kept(config.get_options_for_section)  # type: ignore[assignment]
    config._set_option = _forgetting(config._set_option)
    config.on_config_parsed(_forget, force_connect=True)
