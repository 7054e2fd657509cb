"""The experiment charts as files: standalone HTML (plotly.js beside it, works offline) and PNG through kaleido and
the system Chromium."""
from __future__ import annotations

import shutil
from pathlib import Path

PNG_SIZE = (1200, 560)


def write_html(fig, path: Path) -> Path:
    """Standalone interactive HTML; plotly.js is written once next to it (works offline)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(str(path), include_plotlyjs="directory", full_html=True)
    return path


def png_unavailable() -> str | None:
    """Why PNG export cannot work here (kaleido or Chromium missing), or None if it can."""
    try:
        import kaleido  # noqa: F401 (imported only to see whether it is installed)
    except ImportError:
        return "the 'kaleido' package is not installed (pip install -r requirements.txt)"
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome")):
        return "no Chrome/Chromium browser found (apt-get install -y chromium)"
    return None


def write_png(fig, path: Path, width: int = PNG_SIZE[0]) -> Path:
    """Static PNG through kaleido 1.x, which drives the system Chromium headless."""
    return write_pngs([(fig, Path(path))], width)[0]


def write_pngs(items, width: int = PNG_SIZE[0]) -> list[Path]:
    """Several PNGs with one headless-Chromium start (kaleido batch); items are (figure, path) pairs."""
    import plotly.io as pio

    if not items:
        return []
    figs, paths = [f for f, _ in items], [Path(p) for _, p in items]
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
    heights = [int(f.layout.height or PNG_SIZE[1]) for f in figs]
    pio.write_images(figs, [str(p) for p in paths], width=width, height=heights, scale=1)
    return paths
