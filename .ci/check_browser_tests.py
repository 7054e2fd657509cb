"""Fail CI when the browser tests were not collected or any of them was skipped."""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def main(path: str) -> int:
    """Read a JUnit XML report and require at least one browser test, none skipped."""
    root = ET.parse(path).getroot()
    browser = [tc for tc in root.iter("testcase") if "test_browser" in tc.get("classname", "")]
    skipped = [tc.get("name") for tc in browser if tc.find("skipped") is not None]
    if not browser:
        print("CI: no browser tests were collected (tests/test_browser*.py)")
        return 1
    if skipped:
        print(f"CI: {len(skipped)} browser tests were skipped: {skipped}")
        return 1
    print(f"CI: {len(browser)} browser tests ran, none skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
