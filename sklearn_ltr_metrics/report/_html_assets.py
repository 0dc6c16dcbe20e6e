"""The page's own style sheet and script: inline, offline (no network asset, no CDN)."""

from __future__ import annotations

__all__ = ["PAGE_CSS", "SORT_SCRIPT"]

#: Layout of report.html on top of the tables' CSS: verdict box, contents, table-plot pairs.
PAGE_CSS = """
body{max-width:1400px}
.verdict{background:#eef6ee;border-left:5px solid #2e7d32;padding:.6rem 1rem;margin:1rem 0}
.verdict h2{margin-top:.2rem;border:0}.verdict li{margin:.25rem 0}
nav.toc{background:#f6f7f9;border:1px solid #e1e4e8;padding:.4rem 1rem;margin:1rem 0;
font-size:.92rem}nav.toc ol{columns:2;margin:.3rem 0}
.pair{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:flex-start}
.pair>.tbl{flex:1 1 560px;min-width:0}.pair>figure,.pair>.figs{flex:0 1 560px;margin:0}
details>summary{cursor:pointer;color:#1f5fa8;margin:.3rem 0}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" \\25B2"}
table.sortable th[aria-sort=descending]::after{content:" \\25BC"}
"""

#: Sort a table by a header click (or Enter): numbers by value, text alphabetically.
SORT_SCRIPT = """
(function(){
  function key(row, i){
    var t = row.cells[i] ? row.cells[i].textContent.trim() : "";
    var m = t.match(/^[\\[<>]?\\s*([+-]?\\d[\\d.]*(?:e[+-]?\\d+)?)/i);
    return m ? parseFloat(m[1]) : t.toLowerCase();
  }
  function sort(th){
    var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function(h){ h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows), dir = asc ? 1 : -1;
    rows.sort(function(a, b){
      var x = key(a, i), y = key(b, i);
      if (typeof x !== typeof y) { return (typeof x === "number" ? -1 : 1) * dir; }
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable th").forEach(function(th){
    th.tabIndex = 0;
    th.title = "Sort by this column";
    th.addEventListener("click", function(){ sort(th); });
    th.addEventListener("keydown", function(e){ if (e.key === "Enter") { sort(th); } });
  });
})();
"""
