#!/usr/bin/env python3
"""Opens a `fsppadm report --html` page in headless Chromium and checks what it shows.

Called by tests/integration/tier_report_test.cc:

    report_browser_check.py PAGE.html EXPECTED.json [SCREENSHOT.png]

EXPECTED.json: {"mount_point": "/mnt", "bar_width": 600,
                "directories": [{"path": "/a", "files": 3, "bytes": 900,
                                 "classes": {"ssd": 900}, "io": 1200}, ...]}

Checks, in the rendered page: the title names the mount point; the page makes no
request other than itself (it is self-contained); one chart bar per directory,
named by its path; each class segment's rendered width is bytes / (bytes of the
biggest directory) x bar_width; each heat bar's width is io (bytes read and
written) / (the largest io) x bar_width;
the directory table's files and bytes per class equal the expected numbers.

Uses Debian's chromium (/usr/bin/chromium), never a browser Playwright downloads.
Exit status: 0 all good, 1 a check failed (each failure on its own line), 2 usage.
"""
import json
import sys

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
TOLERANCE_PX = 1.0


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    page_path, expected_path = argv[1], argv[2]
    screenshot = argv[3] if len(argv) == 4 else None
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    failures = []

    def check(ok, message):
        if not ok:
            failures.append(message)

    with sync_playwright() as p:
        # --no-sandbox: the test runs as root, where Chromium's sandbox refuses to start.
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            foreign = []
            page.on("request", lambda r: None if r.url.startswith("file://")
                    else foreign.append(r.url))
            page.goto("file://" + page_path, wait_until="load", timeout=30000)
            if screenshot:
                page.screenshot(path=screenshot, full_page=True)

            title = page.title()
            heading = page.inner_text("h1#title")
            check(expected["mount_point"] in title,
                  f"title {title!r} does not name {expected['mount_point']!r}")
            check(expected["mount_point"] in heading,
                  f"heading {heading!r} does not name {expected['mount_point']!r}")
            check(not foreign, f"the page requested {foreign}")

            bars = page.eval_on_selector_all(
                "svg#chart g.dir",
                """groups => groups.map(g => ({
                     path: g.getAttribute('data-path'),
                     segs: Array.from(g.querySelectorAll('rect.seg')).map(r => ({
                       cls: r.getAttribute('data-class'),
                       bytes: Number(r.getAttribute('data-bytes')),
                       width: r.getBoundingClientRect().width})),
                     heat: g.querySelector('rect.heat').getBoundingClientRect().width}))""")
            want = expected["directories"]
            check([b["path"] for b in bars] == [d["path"] for d in want],
                  f"chart bars {[b['path'] for b in bars]} != {[d['path'] for d in want]}")
            # The chart is drawn at its natural size (1 SVG unit = 1 CSS pixel).
            biggest = max(d["bytes"] for d in want)
            busiest = max(d["io"] for d in want)
            for bar, d in zip(bars, want):
                got = {s["cls"]: s for s in bar["segs"]}
                check(set(got) == set(d["classes"]),
                      f"{d['path']}: bar segments {sorted(got)} != {sorted(d['classes'])}")
                for cls, nbytes in d["classes"].items():
                    if cls not in got:
                        continue
                    width = expected["bar_width"] * nbytes / biggest
                    check(got[cls]["bytes"] == nbytes,
                          f"{d['path']}: {cls} segment says {got[cls]['bytes']} bytes, not {nbytes}")
                    check(abs(got[cls]["width"] - width) <= TOLERANCE_PX,
                          f"{d['path']}: {cls} segment is {got[cls]['width']:.2f}px wide, "
                          f"expected {width:.2f}px")
                heat = expected["bar_width"] * d["io"] / busiest if busiest else 0
                check(abs(bar["heat"] - heat) <= TOLERANCE_PX,
                      f"{d['path']}: heat bar is {bar['heat']:.2f}px wide, expected {heat:.2f}px")

            header = page.eval_on_selector_all("table#directories thead th",
                                               "ths => ths.map(t => t.innerText.trim())")
            rows = page.eval_on_selector_all(
                "table#directories tbody tr",
                """trs => trs.map(tr => ({
                     path: tr.cells[0].innerText,
                     cells: Array.from(tr.cells).map(c => ({
                       text: c.innerText.trim(), value: c.getAttribute('data-value')}))}))""")
            check([r["path"] for r in rows] == [d["path"] for d in want],
                  f"table rows {[r['path'] for r in rows]} != {[d['path'] for d in want]}")
            for row, d in zip(rows, want):
                cells = dict(zip(header, row["cells"]))
                check(cells["Files"]["text"] == str(d["files"]),
                      f"{d['path']}: Files shows {cells['Files']['text']!r}, expected {d['files']}")
                check(cells["Bytes"]["value"] == str(d["bytes"]),
                      f"{d['path']}: Bytes holds {cells['Bytes']['value']!r}, expected {d['bytes']}")
                for cls, nbytes in d["classes"].items():
                    cell = cells.get(cls)
                    check(cell is not None and cell["value"] == str(nbytes),
                          f"{d['path']}: column {cls} holds {cell and cell['value']!r}, "
                          f"expected {nbytes}")
        finally:
            browser.close()

    for message in failures:
        print("report_browser_check: " + message)
    if not failures:
        print("report_browser_check: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
