"""Write the Adversary lab's default-view audits that ship with the app (``ui.audit.BUNDLE_FILE``).

A server nobody has opened yet reads them instead of computing them while its first visitors wait (issue 34). They
are the audits the page itself runs on its default link (the bundled sample, seed 0, every default), computed
afresh through the page in one process (Streamlit's AppTest), so they are exactly what the page would compute.
Run it again whenever the audit, the sample or the page's defaults change; ``tests/test_audit_bundle.py`` fails
until then:

    python deploy/bundle_audit.py            # writes assets/audit_default/audits.pickle
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the app's ui/ and lmdk/, when run as a script from anywhere


def record_default_view() -> dict:
    """The default view's audits, computed afresh by opening the page: digest -> (token, Audit)."""
    from streamlit.testing.v1 import AppTest

    from ui import audit as ui_audit

    ui_audit.clear()
    with ui_audit.recording() as record:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.run()
        at.switch_page("pages/adversary_lab.py").run()
        if at.exception or at.error:
            raise RuntimeError(f"the Adversary lab did not open: {[e.value for e in (*at.exception, *at.error)]}")
    ui_audit.clear()
    if not record:
        raise RuntimeError("the Adversary lab's default view audited nothing")
    return dict(record)


def main() -> None:
    from lmdk.assets import ASSETS
    from ui import audit as ui_audit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ASSETS / ui_audit.BUNDLE_FILE, help="bundle file to write")
    args = parser.parse_args()
    record = record_default_view()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    ui_audit.write_bundle(record, args.out)
    schemes = ", ".join(result.scheme for _, result in record.values())
    print(f"wrote {len(record)} audits ({schemes}) to {args.out}")


if __name__ == "__main__":
    main()
