"""The figures of a Monte-Carlo run or configuration, built once and handed to every session asking for them
(issue 34): ``drawn``. Their "Show data" texts are kept the same way by ``ui.charts.alt_text.chart_text``."""
from __future__ import annotations

from ui.charts.figure import DrawOnceFigure, single_draw
from ui.session.cache import MAX_ENTRIES
from ui.session.cache_scope import bounded_cache


@bounded_cache(MAX_ENTRIES, read_only=True)
def drawn(kind: str, key: str, _build, restyle: bool = True):
    """The figure of ``_build()`` for chart ``kind`` of the Monte-Carlo run or configuration ``key`` (which fixes every
    number in it; ``ui.session.cache.run_key``), built once and handed to every session asking for it as a draw-once
    figure: restyled (``ui.charts.single_draw``) or, with ``restyle`` False, with its own spec and template as they
    are. Plotly validates a figure built trace by trace, half of opening such a page (issue 34); an upload's figures
    stay in its session (``bounded_cache``)."""
    fig = _build()
    if restyle:
        return single_draw(fig)
    spec = fig.to_plotly_json()
    return DrawOnceFigure(spec["data"], spec["layout"])
