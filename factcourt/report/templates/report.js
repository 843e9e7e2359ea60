// Draws the marked text a page at a time, opens a mark's details, sorts tables.
// Every text goes into the page through textContent: none of it is read as HTML.
(function () {
  "use strict";
  var dataNode = document.getElementById("report-data");
  var data = dataNode ? JSON.parse(dataNode.textContent) : { marked: {} };
  var panel = document.getElementById("detail");
  var body = document.getElementById("detail-body");
  var opener = null;

  function drawPage(box, pages, at) {
    var text = box.querySelector(".text");
    var pager = box.querySelector(".pager");
    text.textContent = "";
    (pages[at] || []).forEach(function (seg) {
      if (typeof seg === "string") {
        text.appendChild(document.createTextNode(seg));
        return;
      }
      var mark = document.createElement("mark");
      mark.className = "v-" + seg[1];
      mark.tabIndex = 0;
      mark.setAttribute("role", "button");
      mark.setAttribute("aria-label", seg[3] + ": " + seg[0]);
      mark.title = seg[3];
      mark.dataset.detail = seg[2].join(" ");
      var icon = document.createElement("span");
      icon.className = "ic";
      icon.setAttribute("aria-hidden", "true");
      icon.textContent = iconOf(seg[1]);
      mark.appendChild(icon);
      mark.appendChild(document.createTextNode(seg[0]));
      text.appendChild(mark);
    });
    pager.hidden = pages.length < 2;
    pager.querySelector(".page-no").textContent = "page " + (at + 1) + " of " + pages.length;
    pager.querySelector('[data-page="-1"]').disabled = at === 0;
    pager.querySelector('[data-page="1"]').disabled = at === pages.length - 1;
    box.dataset.at = at;
  }

  var ICONS = JSON.parse(document.body.dataset.icons || "{}");
  function iconOf(mark) { return ICONS[mark] || "•"; }

  document.querySelectorAll("[data-marked]").forEach(function (box) {
    drawPage(box, data.marked[box.dataset.marked] || [[]], 0);
  });

  function openDetail(from) {
    body.textContent = "";
    from.dataset.detail.split(" ").forEach(function (id) {
      var tpl = document.getElementById("d" + id);
      if (tpl) body.appendChild(tpl.content.cloneNode(true));
    });
    document.querySelectorAll("mark.current").forEach(function (m) { m.classList.remove("current"); });
    if (from.tagName === "MARK") from.classList.add("current");
    else showInText(Number(from.dataset.detail.split(" ")[0]));
    panel.hidden = false;
    opener = from;
    panel.scrollTop = 0;
    document.getElementById("detail-title").focus();
  }

  // Opened from a table: turn the text to the page that holds the mark, and outline it there.
  function showInText(id) {
    document.querySelectorAll("[data-marked]").forEach(function (box) {
      var pages = data.marked[box.dataset.marked] || [];
      var at = pages.findIndex(function (page) {
        return page.some(function (seg) { return typeof seg !== "string" && seg[2].indexOf(id) >= 0; });
      });
      if (at < 0) return;
      if (at !== Number(box.dataset.at)) drawPage(box, pages, at);
      box.querySelectorAll("mark").forEach(function (m) {
        if (m.dataset.detail.split(" ").map(Number).indexOf(id) >= 0) m.classList.add("current");
      });
    });
  }

  function closeDetail() {
    panel.hidden = true;
    if (opener && document.contains(opener)) opener.focus();
  }

  document.addEventListener("click", function (e) {
    var hit = e.target.closest("[data-detail]");
    if (hit) { openDetail(hit); return; }
    if (e.target.closest("[data-close]")) { closeDetail(); return; }
    var turn = e.target.closest("[data-page]");
    if (turn) {
      var box = turn.closest("[data-marked]");
      var pages = data.marked[box.dataset.marked];
      var at = Math.max(0, Math.min(pages.length - 1, Number(box.dataset.at) + Number(turn.dataset.page)));
      drawPage(box, pages, at);
    }
  });

  document.addEventListener("keydown", function (e) {
    var hit = e.target.closest && e.target.closest("mark[data-detail]");
    if (hit && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      openDetail(hit);
    } else if (e.key === "Escape" && !panel.hidden) {
      closeDetail();
    }
  });

  // Sortable tables: a button in each header; numbers sort as numbers, "n/a" and "-" last.
  function cellKey(row, col) {
    var text = row.cells[col] ? row.cells[col].textContent.trim() : "";
    var num = parseFloat(text.replace(/[%$,]/g, ""));
    return isNaN(num) ? { num: null, text: text.toLowerCase() } : { num: num, text: text };
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var head = table.tHead ? table.tHead.rows[0] : null;
    if (!head || !table.tBodies[0]) return;
    Array.prototype.forEach.call(head.cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(head.cells, function (c) { c.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(table.tBodies[0].rows);
        rows.sort(function (a, b) {
          var x = cellKey(a, col), y = cellKey(b, col);
          var order;
          if (x.num !== null && y.num !== null) order = x.num - y.num;
          else if (x.num !== null) return -1;
          else if (y.num !== null) return 1;
          else order = x.text.localeCompare(y.text);
          return up ? order : -order;
        });
        rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
      });
    });
  });
})();
