"""Browser test: the five hardest real exports go through the import step in Chromium (../shared/data/realworld)."""
from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import choose_option, exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser
REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "realworld"
HARDEST = {  # file → the caption the loaded series must show
    "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv": "n = 38 events",
    "uci_household_power_consumption_subset.txt": "n = 2,203 events",  # whole files since issue 28 (no 1,000 cut)
    "sociopatterns_primaryschool.csv": "n = 2,594 events",
    "redd_house1_channel1_epoch.dat": "n = 48 events",
    "tdrive_taxi1_and_2_combined.txt": "n = 18 events",
}


@pytest.fixture
def context(browser_context):
    if not REALWORLD.is_dir():
        pytest.skip("../shared/data/realworld is absent")
    return browser_context


def upload(page, name: str, width: int = 1400) -> None:
    """Upload the real file ``name`` on the loaded upload page (replacing any file before it) and wait for its
    caption."""
    page.set_viewport_size({"width": width, "height": 900})
    wait_idle(page)
    page.locator(".st-key-upload_file input[type='file']").set_input_files(str(REALWORLD / name))
    page.wait_for_function(f"() => document.body.innerText.includes({HARDEST[name]!r})", timeout=90_000)
    wait_idle(page)


def open_settings(page) -> None:
    """Expand the import settings (they start open only when detection has a question)."""
    if not page.get_by_role("button", name="Apply import settings").is_visible():
        page.get_by_text("Import settings — how the file is read").click()
    page.get_by_role("button", name="Apply import settings").wait_for(timeout=30_000)


def wait_text(page, text: str) -> None:
    page.wait_for_function(f"() => document.body.innerText.includes({text!r})", timeout=90_000)
    wait_idle(page)


def test_hardest_real_files_load_through_the_import_step(context, app_url):
    """One after the other in one session, as a user replaces a file: each file loads (its caption, no exception,
    no error, no field names of the mapping shown; screenshot at 1400 px); the German export and the two-taxi file
    then walk through a changed setting (FOLLOW_UP), and the next file still loads with its own settings."""
    page = context.new_page()
    try:
        page.goto(f"{app_url}/data_landmarks?source=upload")
        wait_idle(page, timeout=120_000)
        for name in sorted(HARDEST):
            upload(page, name)
            assert not exceptions(page), name
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, name
            body = page.inner_text("body")
            assert "entity=" not in body and "kind=" not in body, name
            screenshot(page, f"import_{Path(name).stem}_1400")
            if name in FOLLOW_UP:
                FOLLOW_UP[name](page)
    finally:
        page.close()


def german_export_changes_a_setting_at_1024_and_1920(page) -> None:
    page.set_viewport_size({"width": 1024, "height": 900})
    wait_idle(page)
    assert "2006-12-16 17:00:00 → 2006-12-18 06:00:00" in page.inner_text("body")
    open_settings(page)
    zone = page.locator(".st-key-imp_timezone input")
    zone.fill("Europe/Berlin")
    zone.press("Tab")
    page.get_by_role("button", name="Apply import settings").click()
    wait_text(page, "2006-12-16 16:00:00+00:00")  # 17:00 in Berlin (CET) is 16:00 UTC
    assert not exceptions(page)
    screenshot(page, "import_german_export_1024")
    page.set_viewport_size({"width": 1920, "height": 1000})
    wait_idle(page)
    screenshot(page, "import_german_export_1920")


def two_taxi_file_picks_the_other_taxi_in_a_select_box(page) -> None:
    open_settings(page)
    choose_option(page, "imp_entity", "1 — 16 rows")
    page.get_by_role("button", name="Apply import settings").click()
    wait_text(page, "n = 14 events")
    assert not exceptions(page)
    screenshot(page, "import_tdrive_taxi1")


FOLLOW_UP = {  # file → what is then done on its page
    "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv": german_export_changes_a_setting_at_1024_and_1920,
    "tdrive_taxi1_and_2_combined.txt": two_taxi_file_picks_the_other_taxi_in_a_select_box,
}


def test_markdown_and_html_in_file_column_and_cell_stay_text(context, app_url, tmp_path):
    """No link or image forms from user-provided text: file name, column name and cell value."""
    page = context.new_page()
    try:
        rows = "".join(f"2024-01-01 {h:02d}:00,{h}\n" for h in range(10))
        bad = tmp_path / "![f](http:evil.example.com-f.png) <img src=x>.csv"
        bad.write_text(f"timestamp,[col](http://evil.example.com/c) <b>x</b>\n{rows}"
                       "2024-01-01 11:00,![cell](http://evil.example.com/i.png) http://evil.example.com\n")
        page.goto(f"{app_url}/data_landmarks?source=upload")
        wait_idle(page, timeout=120_000)
        page.locator(".st-key-upload_file input[type='file']").set_input_files(str(bad))
        page.wait_for_selector("[data-testid='stAlertContentError']", timeout=60_000)
        wait_idle(page)
        assert "evil" in page.inner_text("[data-testid='stMain']")  # the text is shown …
        hrefs = page.eval_on_selector_all("[data-testid='stMain'] a", "els => els.map(e => e.href)")
        srcs = page.eval_on_selector_all("[data-testid='stMain'] img", "els => els.map(e => e.src)")
        assert not [h for h in hrefs if "evil" in h] and not [s for s in srcs if "evil" in s or s.endswith("/x")]
        assert page.locator("[data-testid='stMain'] b", has_text="x").count() == 0
        screenshot(page, "import_markdown_injection")
    finally:
        page.close()
