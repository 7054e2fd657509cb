"""A self-contained HTML report of an analysis: readable offline, printable to PDF from the browser (issue 19).

The report holds the headline, the configuration, the Theorem 2 verdicts, tables, the charts as interactive
Plotly (plotly.js inlined once, no network), the data description without the data, and the lmdk version.
"""
from __future__ import annotations

import html
from datetime import datetime, timezone

from lmdk import __version__

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;
color:#222;line-height:1.5}h1{font-size:1.8rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
.headline{font-size:1.2rem;background:#f4f4f4;padding:1rem;border-radius:6px}table{border-collapse:collapse;
margin:.5rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}.ok{color:#1b7a3a}
.bad{color:#b3261e}footer{margin-top:3rem;color:#666;font-size:.85rem}@media print{.chart{break-inside:avoid}}
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


LANDMARK_VERDICTS = ("(ε, L)-landmark privacy (Theorem 2)", "scheme", "worst Σ over L ∪ {t}")


def html_report(title: str, headline: str, configuration: dict, verdicts: dict[str, tuple[bool, float]],
                tables: dict, figures: list, description: dict, verdict_labels: tuple = LANDMARK_VERDICTS,
                statement: list[str] | None = None) -> str:
    """The report as one HTML document. ``verdicts``: scheme → (satisfies Theorem 2, worst Σ over L ∪ {t});
    ``tables``: caption → pandas DataFrame; ``figures``: plotly figure specs (dicts; drawn interactively, offline);
    ``verdict_labels``: (section title, name column, number column) of the verdict table; ``statement``: the lines of
    what a release guarantees (``lmdk.data.statement.Guarantee.lines``), a section of its own when given."""
    import plotly.io as pio
    from plotly.offline import get_plotlyjs

    charts = "".join(f"<div class='chart'>{pio.to_html(spec, full_html=False, include_plotlyjs=False, validate=False)}"
                     "</div>" for spec in figures)
    verdict_rows = "".join(
        f"<tr><td>{html.escape(s)}</td><td class='{'ok' if ok else 'bad'}'>{'satisfies' if ok else 'violates'}"
        f"</td><td>{worst:.4g}</td></tr>" for s, (ok, worst) in verdicts.items())
    table_html = "".join(f"<h3>{html.escape(caption)}</h3>{frame.to_html(index=False, float_format=lambda v: f'{v:.4g}')}"
                         for caption, frame in tables.items())
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    guarantee_html = ("<h2>What a release guarantees</h2><ul>" + "".join(f"<li>{html.escape(line)}</li>"
                                                                        for line in statement) + "</ul>"
                      if statement else "")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style><script>{get_plotlyjs()}</script></head><body>
<h1>{html.escape(title)}</h1><p class="headline">{_emphasis(headline)}</p>
<h2>Configuration</h2>{_table(configuration)}{guarantee_html}
<h2>{html.escape(verdict_labels[0])}</h2><table><tr><th>{html.escape(verdict_labels[1])}</th><th>verdict</th>
<th>{html.escape(verdict_labels[2])}</th></tr>{verdict_rows}</table>
<h2>Results</h2>{table_html}{charts}
<h2>Data (described, not included)</h2>{_table(description)}
<footer>Made with lmdk {__version__} on {made}. The numbers come from a demonstration seed: they reproduce the
view, they are not a release.</footer></body></html>"""


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
