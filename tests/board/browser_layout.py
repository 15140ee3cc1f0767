"""A page as a 1,280 px browser lays it out: what runs off the page, what overlaps.

The page is copied with its Content-Security-Policy removed and a check script added (the
copy only: the page itself allows no script but its own), then loaded in headless Chromium
at 1,280 px; the script writes what it measured into the DOM that `--dump-dom` prints.
Measured: the page's own horizontal overflow; every element whose right edge passes the
viewport; every table wider than the page column (its wrapper would scroll); in each chart,
every text outside the chart and every two texts whose boxes (rotated with the text)
intersect.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH = 1280
SKIP_REASON = "chromium not installed (apt-get install chromium)"

CHECK = r"""
window.addEventListener("load", function () {
  var doc = document.documentElement, view = doc.clientWidth, found = [];
  function name(el) {
    var text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
    return el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
      ? "." + el.className : "") + " '" + text + "'";
  }
  if (doc.scrollWidth > view) { found.push("page scrolls sideways: " + doc.scrollWidth); }
  Array.prototype.forEach.call(document.body.querySelectorAll("*"), function (el) {
    if (el.closest("div.table") && el.tagName !== "DIV") { return; }  // measured below
    var r = el.getBoundingClientRect();
    if (r.width && r.right > view + 0.5) { found.push("past the right edge: " + name(el)); }
  });
  Array.prototype.forEach.call(document.querySelectorAll("div.table"), function (box) {
    if (box.scrollWidth > box.clientWidth + 1) {
      found.push("table wider than the page (" + box.scrollWidth + " > " + box.clientWidth
        + "): " + name(box.querySelector("tr")));
    }
  });
  function quad(el) {  // the text's box, rotated with it, in page pixels
    var b = el.getBBox(), m = el.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
            [b.x, b.y + b.height]].map(function (p) {
      return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f];
    });
  }
  function apart(p, q) {  // separating axis test on two convex quads
    var polys = [p, q];
    for (var k = 0; k < 2; k++) {
      var poly = polys[k];
      for (var i = 0; i < 4; i++) {
        var a = poly[i], b = poly[(i + 1) % 4], nx = a[1] - b[1], ny = b[0] - a[0];
        var span = function (s) {
          var v = s.map(function (pt) { return pt[0] * nx + pt[1] * ny; });
          return [Math.min.apply(null, v), Math.max.apply(null, v)];
        };
        var x = span(p), y = span(q), tol = 0.5 * Math.hypot(nx, ny);
        if (x[1] <= y[0] + tol || y[1] <= x[0] + tol) { return true; }
      }
    }
    return false;
  }
  Array.prototype.forEach.call(document.querySelectorAll("svg.chart"), function (svg) {
    var frame = svg.getBoundingClientRect();
    var title = svg.querySelector("title").textContent;
    var texts = Array.prototype.slice.call(svg.querySelectorAll("text"));
    var quads = texts.map(quad);
    quads.forEach(function (q, i) {
      q.forEach(function (pt) {
        if (pt[0] < frame.left - 0.5 || pt[0] > frame.right + 0.5 ||
            pt[1] < frame.top - 0.5 || pt[1] > frame.bottom + 0.5) {
          found.push("outside its chart (" + title + "): " + name(texts[i]));
        }
      });
      for (var j = 0; j < i; j++) {
        if (!apart(q, quads[j])) {
          found.push("overlap in " + title + ": " + name(texts[j]) + " / " + name(texts[i]));
        }
      }
    });
  });
  var out = document.createElement("pre");
  out.id = "layout-check";
  out.textContent = JSON.stringify({width: view, charts: document.querySelectorAll(
    "svg.chart").length, tables: document.querySelectorAll("table").length, found: found});
  document.body.appendChild(out);
});
"""


def chromium(page: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", "--virtual-time-budget=3000",
         f"--window-size={WIDTH},2000", *extra, page],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def layout(html: Path, work: Path) -> dict[str, Any]:
    """What the check script measured on `html` at 1,280 px."""
    text = html.read_text(encoding="utf-8")
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)
    text = text.replace("</body>", f"<script>{CHECK}</script></body>")
    work.mkdir(parents=True, exist_ok=True)
    copy = work / html.name
    copy.write_text(text, encoding="utf-8")
    result = chromium(copy.as_uri(), work / "profile", "--dump-dom")
    match = re.search(r'<pre id="layout-check">(.*?)</pre>', result.stdout, re.S)
    assert match is not None, result.stderr[-2000:]
    unescaped = match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    measured: dict[str, Any] = json.loads(unescaped)
    return measured


def screenshot(html: Path, png: Path, work: Path, height: int = 6000) -> None:
    chromium(html.as_uri(), work / "profile-shot", f"--screenshot={png}",
             f"--window-size={WIDTH},{height}")  # fmt: skip
