"""The board page's only script: sort any table by a header click, filter rows by text.

Inline and small, allowed by the page's CSP through its sha256 (see report/html.py). It
reads the page and moves rows; it loads nothing. The page reads the same without it.
`#sort=T.C.asc|desc` and `#filter=TEXT` in the address apply a sort (table T, column C,
0-based) or a filter on load, so a sorted view can be linked to.
"""

SCRIPT = r"""
(function () {
  "use strict";
  var tables = Array.prototype.slice.call(document.querySelectorAll("table"));
  function keyOf(cell) {
    var text = cell ? cell.textContent.trim() : "";
    if (cell && cell.classList.contains("num")) {
      var m = text.match(/[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?/i);
      return { n: m ? parseFloat(m[0]) : NaN, t: "" };
    }
    return { n: NaN, t: text.toLowerCase() };
  }
  function sortBy(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.some(function (r) { return !isNaN(keyOf(r.cells[col]).n); });
    rows.sort(function (a, b) {
      var x = keyOf(a.cells[col]), y = keyOf(b.cells[col]);
      if (numeric) {
        if (isNaN(x.n) !== isNaN(y.n)) { return isNaN(x.n) ? 1 : -1; }
        var d = isNaN(x.n) ? 0 : x.n - y.n;
        return dir === "desc" ? -d : d;
      }
      var c = x.t < y.t ? -1 : (x.t > y.t ? 1 : 0);
      return dir === "desc" ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var state = dir === "desc" ? "descending" : "ascending";
      th.setAttribute("aria-sort", i === col ? state : "none");
    });
  }
  tables.forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.setAttribute("data-sort", "");
      th.title = "sort by this column";
      th.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc";
        sortBy(table, col, dir);
      });
    });
  });
  var input = document.createElement("input");
  input.type = "search";
  input.className = "filter";
  input.placeholder = "Filter rows: system, folder, any text";
  input.setAttribute("aria-label", "filter table rows");
  input.addEventListener("input", function () {
    var q = input.value.toLowerCase();
    tables.forEach(function (table) {
      Array.prototype.forEach.call(table.tBodies[0] ? table.tBodies[0].rows : [], function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });
  var heading = document.querySelector("h1");
  if (heading) { heading.parentNode.insertBefore(input, heading.nextSibling); }
  var hash = decodeURIComponent(location.hash.slice(1));
  var sort = hash.match(/^sort=(\d+)\.(\d+)\.(asc|desc)$/);
  if (sort && tables[+sort[1]] && tables[+sort[1]].tHead) {
    var th = tables[+sort[1]].tHead.rows[0].cells[+sort[2]];
    if (th) { th.click(); if (sort[3] === "desc") { th.click(); } }
  }
  var filter = hash.match(/^filter=(.*)$/);
  if (filter) { input.value = filter[1]; input.dispatchEvent(new Event("input")); }
})();
""".strip()
