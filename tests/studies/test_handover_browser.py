"""The risk report page in a real headless browser (Debian's chromium): it renders with every
section, logs nothing to the console, requests nothing from the network, and its screenshot
shows the figures. A broken page (a script logging an error, an image fetched from the
network) is caught by the same checks. Skipped where chromium is not installed, except in CI
(``CI=true``), which installs it (``.ci/run``)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from pandas_anon.plotting import HIGHLIGHT, REST
from pandas_anon.studies.handover import risk_report

import handover_reports

CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None
)
if CHROMIUM is None and os.environ.get("CI") != "true":
    pytest.skip("chromium is not installed (CI installs it)", allow_module_level=True)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib import image  # noqa: E402

#: A headless browser that makes no request of its own (updates, accounts, spelling), so
#: that every request in its network log comes from the page.
FLAGS = [
    "--headless=new",
    "--no-sandbox",  # root in CI's containers
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--enable-logging=stderr",
    "--v=0",
]


@pytest.fixture
def licence_report():
    return handover_reports.licence_report()


@dataclass
class Rendered:
    dom: str
    console: list[str]  # what the page logged
    requests: list[str]  # the URLs the page asked for
    screenshot: np.ndarray  # RGB, 0-255


def render(page: Path, work: Path) -> Rendered:
    """The page as chromium renders it: its DOM, console, requests and a screenshot."""
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's"
    url = page.resolve().as_uri()
    net_log, shot = work / "net.json", work / "shot.png"
    shown = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--log-net-log={net_log}",
            "--window-size=1280,6000",
            f"--screenshot={shot}",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    log = json.loads(net_log.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    requests = [
        event["params"]["url"]
        for event in log["events"]
        if event["type"] == start
        and "url" in event.get("params", {})
        and event["params"].get("initiator") != "not an origin"
    ]  # the browser's own requests have no origin; a page's have one ("null" for a file)
    console = re.findall(r":CONSOLE[^\]]*\] (.*)", shown.stderr)
    return Rendered(dom, console, requests, np.rint(image.imread(shot)[..., :3] * 255))


def pixels_of(screenshot: np.ndarray, colour: str) -> int:
    """How many pixels of the screenshot have ``colour`` (``#rrggbb``, within antialiasing)."""
    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(screenshot - rgb).max(axis=-1) <= 12).sum())


def test_the_report_renders_with_its_sections_and_figures(licence_report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(licence_report.to_html(), encoding="utf-8")
    shown = render(page, tmp_path)
    titles = re.findall(r"<h2>([^<]*)</h2>", shown.dom)
    assert titles[:3] == ["Summary", "Direct identifiers", "The most exposed columns"]
    assert titles[3].startswith("Class sizes on (")
    assert titles[4:] == ["What k=5 costs, by method", "Next step"]
    assert shown.console == [] and shown.requests == []
    # the two figures drawn: the page's own styles use neither colour
    assert pixels_of(shown.screenshot, HIGHLIGHT) > 5_000
    assert pixels_of(shown.screenshot, REST) > 5_000


def test_the_checks_catch_a_page_that_logs_or_fetches(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        '<html><body><h2>Summary</h2><img src="http://example.invalid/figure.png">'
        '<script>console.error("broken")</script></body></html>'
    )
    shown = render(page, tmp_path)
    assert shown.requests == ["http://example.invalid/figure.png"]
    assert any("broken" in line for line in shown.console)
    assert pixels_of(shown.screenshot, HIGHLIGHT) == 0


# -- at 1280 px: every table fits, every figure formatted, any column name drawn -------------

#: Appended to a copy of the page (the page itself runs no script): what the browser laid
#: out, written into the DOM for --dump-dom to read.
MEASURE = """<script>
const boxes = [...document.querySelectorAll("table")].map(t => t.parentElement);
document.body.dataset.measured = JSON.stringify({
  viewport: document.documentElement.clientWidth,
  page: document.documentElement.scrollWidth,
  tables: boxes.map(b => ({scroll: b.scrollWidth, client: b.clientWidth,
                           right: b.firstElementChild.getBoundingClientRect().right})),
  cells: [...document.querySelectorAll("td, th")].map(c => c.innerText.trim()),
  text: document.body.innerText,
});
</script>"""


def measure(page: str, work: Path, width: int = 1280) -> dict:
    """The page laid out at ``width`` pixels by chromium: the viewport's and the page's
    widths, each table's box (scroll and client widths, the table's right edge), the text of
    every cell and of the page."""
    assert CHROMIUM is not None, "CI must have chromium: .ci/run installs Debian's"
    copy = work / "measured.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, f"--window-size={width},2000", "--dump-dom", copy.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    found = re.search(r'data-measured="([^"]*)"', dom)
    assert found, dom[:500]
    return json.loads(html.unescape(found.group(1)))


def test_at_1280_px_every_table_fits_and_every_figure_is_formatted(licence_report, tmp_path):
    """The cost table was cut off past GCP; numbers mixed 183276 with 198,524, and
    19852.400000 and NaN appeared."""
    laid = measure(licence_report.to_html(), tmp_path)
    assert laid["viewport"] == 1280 and laid["page"] <= laid["viewport"]
    assert len(laid["tables"]) == 5
    for box in laid["tables"]:
        assert box["scroll"] <= box["client"] and box["right"] <= laid["viewport"], box
    figures = [c for c in laid["cells"] if re.fullmatch(r"-?[\d.,]+", c)]
    assert len(figures) > 50
    assert [c for c in figures if not re.fullmatch(r"-?\d{1,3}(,\d{3})*(\.\d{4})?", c)] == []
    assert "NaN" not in laid["text"]


def test_a_column_named_with_dollars_renders(tmp_path):
    """$x$ and a$b^$ are column names, not mathtext: the page is written, shows them as
    spelled and draws its figures (a$b^$ crashed it)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "$x$": rng.integers(0, 5, 60),
            "a$b^$": rng.choice(list("pqr"), 60),
            "c": rng.integers(0, 3, 60),
        }
    )
    page = tmp_path / "report.html"
    page.write_text(risk_report(frame, qid=["$x$", "a$b^$", "c"], k=2).to_html())
    shown = render(page, tmp_path)
    assert "Class sizes on ($x$, a$b^$, c)" in re.findall(r"<h2>([^<]*)</h2>", shown.dom)
    assert shown.console == [] and shown.requests == []
    assert pixels_of(shown.screenshot, HIGHLIGHT) > 1_000  # the figures drawn
    assert "$x$, a$b^$, c" in measure(page.read_text(), tmp_path)["text"]
