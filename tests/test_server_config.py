"""The server settings a deployment relies on, as Streamlit reads them from .streamlit/config.toml when the README's
``streamlit run app.py`` starts it: no source watching and no full collection after every run (issue 34: server
CPU), no error details for viewers, uploads capped and held in memory, XSRF protection on."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_project_config_is_what_streamlit_reads(monkeypatch):
    from streamlit import config

    monkeypatch.chdir(ROOT)
    try:
        config.get_config_options(force_reparse=True, options_from_flags={})
        read = {name: config.get_option(name) for name in (
            "server.fileWatcherType", "runner.postScriptGC", "client.showErrorDetails", "server.maxUploadSize",
            "server.enableXsrfProtection", "server.headless", "browser.gatherUsageStats")}
    finally:
        os.chdir(ROOT)
        config.get_config_options(force_reparse=True)
    assert read == {"server.fileWatcherType": "none", "runner.postScriptGC": False, "client.showErrorDetails": "none",
                    "server.maxUploadSize": 50, "server.enableXsrfProtection": True, "server.headless": True,
                    "browser.gatherUsageStats": False}
