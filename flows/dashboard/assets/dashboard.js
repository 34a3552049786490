// Sortable tables (th[data-sort] = "num" or "text"; a cell's data-v holds its sort value)
// and a row filter (input[data-filter] names the table ids). No dependencies.
(function () {
  "use strict";
  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) { return numeric ? -Infinity : ""; }
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    if (numeric) {
      var x = parseFloat(raw);
      return isNaN(x) ? -Infinity : x;
    }
    return raw.trim().toLowerCase();
  }
  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.cells, th);
    var numeric = th.getAttribute("data-sort") === "num";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    if (th.getAttribute("aria-sort") === null && numeric) { ascending = false; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) { return [cellValue(row, index, numeric), i, row]; });
    keyed.sort(function (a, b) {
      if (a[0] < b[0]) { return ascending ? -1 : 1; }
      if (a[0] > b[0]) { return ascending ? 1 : -1; }
      return a[1] - b[1];
    });
    var fragment = document.createDocumentFragment();
    keyed.forEach(function (k) { fragment.appendChild(k[2]); });
    body.appendChild(fragment);
    Array.prototype.forEach.call(th.parentNode.cells, function (other) {
      if (other !== th) { other.removeAttribute("aria-sort"); }
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  function setUpSorting(table) {
    Array.prototype.forEach.call(table.querySelectorAll("thead th[data-sort]"), function (th) {
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th); }
      });
    });
  }
  function setUpFilter(input) {
    // data-filter names one table id or several (space-separated); each table's
    // data-count, and the input's own, name the elements showing how many rows are shown.
    var tables = (input.getAttribute("data-filter") || "").split(/\s+/)
      .map(function (id) { return document.getElementById(id); })
      .filter(function (table) { return table; });
    var counter = document.getElementById(input.getAttribute("data-count"));
    if (!tables.length) { return; }
    input.addEventListener("input", function () {
      var needle = input.value.trim().toLowerCase();
      var shown = 0;
      tables.forEach(function (table) {
        var here = 0;
        Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
          var hit = !needle || (row.getAttribute("data-key") || row.textContent).toLowerCase().indexOf(needle) >= 0;
          row.hidden = !hit;
          if (hit) { here += 1; }
        });
        var own = document.getElementById(table.getAttribute("data-count"));
        if (own) { own.textContent = String(here); }
        shown += here;
      });
      if (counter) { counter.textContent = String(shown); }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), setUpSorting);
    Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"), setUpFilter);
  });
})();
