"""A self-contained HTML report of an analysis: readable offline, printable to PDF from the browser (issue 19).

The report holds the headline, the configuration, the Theorem 2 verdicts, tables, the charts as interactive
Plotly (plotly.js inlined once, no network), the data description without the data, and the lmdk version.

The reader meets the headline with its numbers and the data set first, then the settings, the guarantee and the
verdicts; the results show their charts before their tables (issue 35). Printed (issue 28, revised in issue 35), the
page breaks only between the two major parts (the summary, the results), headings stay with what follows, table rows
are never split (a long table repeats its header on the next page) and wide tables wrap inside the page. Each chart
prints as a picture: when the report opens, plotly.js renders every chart to a PNG (``Plotly.toImage``, in the page,
offline) shown only in print, in place of the interactive chart, whose size was set for the screen and would be cut
at the page's edge. Without JavaScript the interactive chart is printed as it is. (Rendering the PNGs on the server
with kaleido was measured at 7–17 s for the first chart on a shared 2-core machine — a headless Chrome per process —
for every download of a report; the browser that opens the report already has everything it needs.)
"""
from __future__ import annotations

import html
from datetime import UTC, datetime

from lmdk.version import __version__

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;
color:#222;line-height:1.5}h1{font-size:1.8rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
.headline{font-size:1.2rem;background:#f4f4f4;padding:1rem;border-radius:6px}table{border-collapse:collapse;
margin:.5rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}.ok{color:#1b7a3a}
.bad{color:#b3261e}footer{margin-top:3rem;color:#666;font-size:.85rem}.chart-print{display:none}
@page{size:A4;margin:14mm 12mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:10.5pt;line-height:1.4;-webkit-print-color-adjust:exact;
print-color-adjust:exact}section.results{break-before:page}h1,h2,h3{break-after:avoid}
table{width:100%;font-size:9pt;break-inside:avoid}
thead{display:table-header-group}tr,.headline,footer{break-inside:avoid}td,th{overflow-wrap:anywhere}
.chart{break-inside:avoid;margin:.6rem 0}.chart.has-image .chart-live{display:none}
.chart.has-image .chart-print{display:block;width:100%;height:auto}.modebar-container{display:none}
.chart-live,.chart-live .plot-container,.chart-live .svg-container{max-width:100%;overflow:hidden}}
"""
# every chart as a PNG for print, drawn in the page by plotly.js once it has drawn them all (see the docstring)
PRINT_SCRIPT = """
window.addEventListener('load', function () {
  if (!window.Plotly) return;
  document.querySelectorAll('.chart').forEach(function (chart) {
    var plot = chart.querySelector('.js-plotly-plot'), image = chart.querySelector('img.chart-print');
    if (!plot || !image) return;
    var height = (plot._fullLayout && plot._fullLayout.height) || 450;
    // a plain font stack: the picture is drawn from an SVG image, where the charts' stack fell back to a serif
    var font = Object.assign({}, plot.layout.font, {family: 'Arial, Helvetica, sans-serif'});
    var figure = {data: plot.data, layout: Object.assign({}, plot.layout, {font: font})};
    Plotly.toImage(figure, {format: 'png', width: 900, height: height, scale: 2}).then(function (url) {
      image.src = url;
      chart.classList.add('has-image');
    }).catch(function () {});
  });
});
"""


def _emphasis(text: str) -> str:
    """The headline's *italic* and **bold** as HTML (everything else escaped)."""
    import re

    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"\*(.+?)\*", r"<i>\1</i>", escaped)


def _table(rows: dict) -> str:
    return "<table>" + "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                               for k, v in rows.items()) + "</table>"


def describe_series(series, events: int | None = None) -> dict:
    """The data description a report carries instead of the data: name, kind, events used, span, units."""
    described = {"series": series.name or "series", "kind": series.kind}
    if events is not None:
        described["events used"] = f"{events:,}"
    described["time span"] = f"{series.timestamps[0]} → {series.timestamps[-1]}"
    described["units"] = series.units or "—"
    return described


def _chart_label(spec: dict, number: int) -> str:
    """A short text for a chart's printed picture: its title, else its headings or trace names."""
    layout = spec.get("layout") or {}
    title = layout.get("title")
    title = title.get("text") if isinstance(title, dict) else title
    if not title:
        parts = [a.get("text") for a in layout.get("annotations") or [] if a.get("text")]
        parts = parts or [t.get("name") for t in spec.get("data") or [] if t.get("name")]
        title = ", ".join(dict.fromkeys(str(p) for p in parts[:6]))
    import re

    return f"Chart {number}" + (f": {re.sub(r'<[^>]+>', ' ', str(title)).strip()}" if title else "")


LANDMARK_VERDICTS = ("(ε, L)-landmark privacy (Theorem 2)", "scheme", "worst Σ over L ∪ {t}")


def html_report(title: str, headline: str, configuration: dict, verdicts: dict[str, tuple[bool, float]],
                tables: dict, figures: list, description: dict, verdict_labels: tuple = LANDMARK_VERDICTS,
                statement: list[str] | None = None) -> str:
    """The report as one HTML document. ``verdicts``: scheme → (satisfies Theorem 2, worst Σ over L ∪ {t});
    ``tables``: caption → pandas DataFrame; ``figures``: plotly figure specs (dicts; drawn interactively, offline);
    ``verdict_labels``: (section title, name column, number column) of the verdict table; ``statement``: the lines of
    what a release guarantees (``lmdk.exports.statement.Guarantee.lines``), a section of its own when given."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    charts = "".join(f"<div class='chart'><div class='chart-live'>"
                     f"{pio.to_html(spec, full_html=False, include_plotlyjs=False, validate=False)}</div>"
                     f"<img class='chart-print' alt='{html.escape(_chart_label(spec, i), quote=True)}'></div>"
                     for i, spec in enumerate(figures, start=1))
    verdict_rows = "".join(
        f"<tr><td>{html.escape(s)}</td><td class='{'ok' if ok else 'bad'}'>{'satisfies' if ok else 'violates'}"
        f"</td><td>{worst:.4g}</td></tr>" for s, (ok, worst) in verdicts.items())
    table_html = "".join(f"<h3>{html.escape(caption)}</h3>"
                         f"{frame.to_html(index=False, float_format=lambda v: f'{v:.4g}')}"
                         for caption, frame in tables.items())
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    guarantee_html = ("<h2>What a release guarantees</h2><ul>"
                      + "".join(f"<li>{html.escape(line)}</li>" for line in statement) + "</ul>"
                      if statement else "")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style><script>{get_plotlyjs()}</script><script>{PRINT_SCRIPT}</script></head><body>
<section class="summary"><h1>{html.escape(title)}</h1><p class="headline">{_emphasis(headline)}</p>
<h2>Data (described, not included)</h2>{_table(description)}
<h2>Configuration</h2>{_table(configuration)}{guarantee_html}
<h2>{html.escape(verdict_labels[0])}</h2><table><thead><tr><th>{html.escape(verdict_labels[1])}</th>
<th>verdict</th><th>{html.escape(verdict_labels[2])}</th></tr></thead><tbody>{verdict_rows}</tbody></table></section>
<section class="results"><h2>Results</h2>{charts}{table_html}
<footer>Made with lmdk {__version__} on {made}. The numbers come from a demonstration seed: they reproduce the
view, they are not a release.</footer></section></body></html>"""


def overview_report(args) -> str:
    """The Overview example's report: (headline, ε, landmarks, {scheme: budgets}, budget chart spec) → HTML."""
    import numpy as np
    import pandas as pd

    from lmdk.privacy import landmark_loss

    headline, epsilon, landmarks, budgets, figure = args
    verdicts = {s: (bool(landmark_loss(b, landmarks).max() <= epsilon + 1e-9), float(landmark_loss(b, landmarks).max()))
                for s, b in budgets.items()}
    table = pd.DataFrame({s: np.round(b, 4) for s, b in budgets.items()}).rename_axis("t").reset_index()
    return html_report("Landmark privacy — the eight-event example", headline,
                       {"ε (total budget)": f"{epsilon:g}", "events": 8,
                        "landmarks": ", ".join(str(int(t)) for t in landmarks) or "none"},
                       verdicts, {"Budget εₜ per timestamp": table}, [figure],
                       {"data": "none: a teaching example of eight events (only the budgets depend on the choice)"})


def spatiotemporal_report(args) -> str:
    """The PriSTE view's report: (headline, configuration, comparison result, ε, [figure specs], description)."""
    import numpy as np
    import pandas as pd

    headline, configuration, res, epsilon, figures, description = args
    plain, calibrated = float(np.max(res.plain_leakage["median"])), float(np.max(res.priste_leakage["median"]))
    verdicts = {"plain α-PLM": (plain <= epsilon + 1e-9, plain), "PriSTE": (calibrated <= epsilon + 1e-9, calibrated)}
    utility = pd.DataFrame({"mechanism": ["plain α-PLM", "PriSTE"],
                            "mean distance (m)": [res.plain_distance_m, res.priste_distance_m],
                            "mean α (per km)": [configuration.get("α₀ (per km)"), res.priste_mean_alpha]})
    return html_report("Spatiotemporal event privacy (PriSTE)", headline, configuration, verdicts,
                       {"Utility": utility}, figures, description,
                       verdict_labels=(f"ε-spatiotemporal event privacy (ε = {epsilon:g})", "mechanism",
                                       "largest median leakage (nats)"))


def dummies_report(args) -> str:
    """The Dummy landmarks view's report: (headline, configuration, {scheme: (holds, worst)}, MAE table,
    disclosure table, [figure specs], description) → HTML."""
    headline, configuration, verdicts, mae_table, disclosure_table, figures, description = args
    return html_report("Landmark privacy — dummy landmarks", headline, configuration, verdicts,
                       {"What the dummies protect": disclosure_table,
                        "Mean absolute error without and with dummies": mae_table}, figures, description,
                       verdict_labels=("(ε, L)-landmark privacy of the release on L′ (Theorem 2)", "scheme",
                                       "worst Σ over L′ ∪ {t}, plus ε for the selection"))


def audit_report(args) -> str:
    """The Adversary lab's report: (headline, configuration, audits as dicts, [figure specs], description) → HTML."""
    from lmdk.present import audit as words

    headline, configuration, audits, figures, description = args
    verdicts = {a["scheme"]: (not a["exceeds_claim"], a["epsilon_lower"]) for a in audits}
    tables = {"Empirical privacy loss (ε̂: Clopper–Pearson interval of the strongest test)": words.loss_table(audits),
              "Landmark-position attack (released values only)": words.positions_table(audits),
              "Value attack (Bayesian guess of one event's value)": words.values_table(audits)}
    correlated = words.correlation_table(audits)
    if not correlated.empty:
        tables["Correlated series: the attack beside the temporal privacy loss"] = correlated
    return html_report("Landmark privacy — adversary lab", headline, configuration, verdicts, tables, figures,
                       description, verdict_labels=("Measured loss within the claimed ε", "scheme",
                                                    "ε̂ lower bound (largest over the neighbours)"))
