"""The HTML report prints to PDF cleanly (issue 28): printed by headless Chromium (Playwright's ``page.pdf``, the
browser's own "Save as PDF"), the summary first and a page break only before the results (issue 35), the charts are
pictures, no table runs off the page.

The pages are also rendered to PNG (poppler's ``pdftoppm``) as test-artifacts/screenshots/report_print-*.png to look
at; ``pdfinfo``, ``pdfimages`` and ``pdftotext`` (poppler-utils, installed by .ci/run) count pages and pictures.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from browser_support import ROOT, SCREENSHOTS, chromium, require_browser

import lmdk

pytestmark = pytest.mark.browser
POPPLER = ("pdfinfo", "pdfimages", "pdftotext", "pdftoppm")


def _require_poppler() -> None:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing:
        if os.environ.get("LMDK_REQUIRE_BROWSER") == "1":
            pytest.fail(f"printing is tested here but {', '.join(missing)} are missing (apt-get install poppler-utils)")
        pytest.skip(f"{', '.join(missing)} missing (apt-get install -y poppler-utils)")


def _top_line(pdf, page: int) -> str:
    """The words of a page's top line of text (within 70 pt of the top margin; '' when the top is a picture)."""
    import html

    boxes = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-bbox", str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout
    pattern = r'<word xMin="[\d.]+" yMin="([\d.]+)"[^>]*>([^<]*)</word>'
    words = [(float(y), html.unescape(w)) for y, w in re.findall(pattern, boxes)]
    if not words or words[0][0] > 70:  # A4 is 842 pt high; the printed margin is 14 mm ≈ 40 pt
        return ""
    return " ".join(w for y, w in words if abs(y - words[0][0]) < 3)


def _report() -> tuple[str, int, list[str]]:
    """A Schemes & utility report as the app builds it (its three charts, a budget table long enough to run over a
    page, the guarantee); returns (html, number of charts, the section headings)."""
    from lmdk import data, landmarks, schemes
    from lmdk.present.report import describe_series, html_report
    from ui import charts

    series = data.sample("hue", n=300)
    L = landmarks.parse_rule("percentile:20").indices(series)
    chosen = ("user", "uniform", "skip", "adaptive")
    rng = np.random.default_rng(0)
    runs = {s: schemes.release(series.values, L, s, 1.0,
                               protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=5, rng=rng) for s in chosen}
    budgets = {s: np.asarray(r.budgets[0], dtype=float) for s, r in runs.items()}
    released = {s: (np.median(r.values, axis=0), np.quantile(r.values, 0.05, axis=0),
                    np.quantile(r.values, 0.95, axis=0)) for s, r in runs.items()}
    mae = [{"scheme": s, "mae": float(np.mean(np.abs(r.values - series.values))), "low": 0.0, "high": 0.0}
           for s, r in runs.items()]
    for row in mae:
        row["low"], row["high"] = 0.9 * row["mae"], 1.1 * row["mae"]
    figures = [charts.figure_spec(charts.budgets(budgets, L, epsilon=1.0)),
               charts.figure_spec(charts.releases(series.timestamps, series.values, released, L,
                                                  y_title="value (kWh)", epsilon=1.0)),
               charts.figure_spec(charts.mae(mae, unit="kWh", epsilon=1.0))]
    table = pd.DataFrame({"t": np.arange(120), **{f"{s} εₜ": b[:120] for s, b in budgets.items()}})
    statement = ["Protected: any one hour's reading changed anywhere in 0–25 kWh, with all the landmarks, at ε = 1.",
                 "Not protected: the positions of the landmarks (Skip's repeats and the budgets reveal them)."]
    html = html_report("Landmark privacy — schemes and utility", "With ε = 1, *skip* keeps the error lowest.",
                       {"ε": "1", "landmarks": f"{L.size} (percentile:20)", "schemes": ", ".join(chosen)},
                       {s: (True, 1.0) for s in chosen},
                       {"Budget εₜ of the first 120 timestamps": table, "Mean absolute error": pd.DataFrame(mae)},
                       figures, describe_series(series, 300), statement=statement)
    headings = ["Data (described, not included)", "Configuration", "What a release guarantees",
                "(ε, L)-landmark privacy (Theorem 2)", "Results"]
    return html, len(figures), headings


def test_the_report_prints_to_pdf_with_a_page_per_section_and_charts_as_pictures(tmp_path):
    require_browser()
    _require_poppler()
    html, n_charts, headings = _report()
    source = tmp_path / "report.html"
    source.write_text(html, encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    with chromium() as context:
        page = context.new_page()
        page.goto(source.as_uri())
        # plotly.js draws each chart, then its printed picture
        page.wait_for_function(f"() => document.querySelectorAll('.chart.has-image').length === {n_charts}",
                               timeout=60_000)
        page.emulate_media(media="print")
        overflow = page.evaluate(
            "() => [...document.querySelectorAll('table, .chart img')].filter(e => e.scrollWidth > "
            "document.body.clientWidth + 1).map(e => e.outerHTML.slice(0, 80))")
        assert not overflow, f"wider than the printed page: {overflow}"
        assert page.evaluate("() => [...document.querySelectorAll('.chart-live')].every("
                             "e => getComputedStyle(e).display === 'none')"), "interactive charts printed"
        page.pdf(path=str(pdf), format="A4", print_background=True)

    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages >= 3, info  # the summary, then the results over at least two pages (the 120-row table)
    images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    pictures = [line for line in images.splitlines()[2:] if " image " in line]
    assert len(pictures) >= n_charts, images
    assert all(int(line.split()[3]) >= 900 for line in pictures[:n_charts]), images  # width in pixels: sharp

    texts = [subprocess.run(["pdftotext", "-f", str(i), "-l", str(i), "-layout", str(pdf), "-"], capture_output=True,
                            text=True, check=True).stdout for i in range(1, pages + 1)]
    tops = [_top_line(pdf, i) for i in range(1, pages + 1)]
    assert tops[0].startswith("Landmark privacy — schemes and utility"), tops[0]
    # issue 35: the headline, the data set and the settings first, on one page; a page break only before the results,
    # whose charts come before their tables
    assert all(heading in texts[0] for heading in headings[:-1]), texts[0]
    assert tops.count("Results") == 1 and tops.index("Results") == 1, tops
    assert html.index("class='chart'") < html.index("<h3>"), "a table before the charts"
    # the long table goes over a page break with its header repeated, and no row is split between pages
    table_pages = [t for t in texts if re.search(r"^\s*t\s+user εₜ", t, re.M)]
    assert len(table_pages) >= 2, "the 120-row table should run over a page break, its header repeated"
    rows = [int(m) for t in texts for m in re.findall(r"^\s*(\d+)\s+\d\.\d+", t, re.M)]
    assert sorted(set(rows)) == list(range(120)) and len(rows) == len(set(rows)), "a table row was cut or lost"

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("report_print-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(SCREENSHOTS / "report_print")], check=True, cwd=ROOT)
    assert len(list(SCREENSHOTS.glob("report_print-*.png"))) == pages
