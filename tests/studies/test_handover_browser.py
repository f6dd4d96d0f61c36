"""The risk report page in a real headless browser (Debian's chromium): it renders with every
section, logs nothing to the console, requests nothing from the network, and its screenshot
shows the figures. A broken page (a script logging an error, an image fetched from the
network) is caught by the same checks. Skipped where chromium is not installed, except in CI
(``CI=true``), which installs it (``.ci/run``)."""

from __future__ import annotations

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


def test_the_report_renders_with_its_sections_and_figures(_licences, tmp_path):
    page = tmp_path / "report.html"
    found = risk_report(_licences, title="patenti.csv")
    page.write_text(found.to_html(), encoding="utf-8")
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
