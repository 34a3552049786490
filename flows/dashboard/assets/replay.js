// The step-by-step replay of a hand page: draws the table of each step from the page's
// #replay-data (the replay engine's snapshots, one per event). Buttons, a slider and the
// arrow keys move between steps; each finding is a mark one click away; the settlement
// items an event moved appear at its step (a kong's payment when it is made), all of them
// at the last step. No dependencies, no network.
// Text from the data is put in the page as text (textContent), never parsed as HTML; the
// only HTML taken from the data is the tile faces the page's builder made. A control or
// bidirectional character in it is shown as an escape (\u202e), as everywhere else.
(function () {
  "use strict";
  var source = document.getElementById("replay-data");
  if (!source) { return; }
  var D = JSON.parse(source.textContent);
  var steps = D.steps;
  var last = steps.length - 1;
  // A seat left null did not change since the step before: carry it forward.
  steps.forEach(function (s, k) {
    s.seats = s.seats.map(function (seat, i) { return seat || steps[k - 1].seats[i]; });
  });
  function split(text) { return text ? text.split(" ") : []; }
  var W = D.labels;
  var current = 0;
  var slider = document.getElementById("replay-slider");

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }
  // the pages' rule (zhuoji.flows.text.terminal.safe): C0 and C1 controls, DEL, U+2028/2029 and the
  // bidirectional marks, embeddings, overrides and isolates written as visible escapes
  var UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  var NAMED = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  function visible(text) {
    return String(text).replace(UNSAFE, function (c) {
      if (NAMED[c]) { return NAMED[c]; }
      var code = c.charCodeAt(0);
      return code <= 0xff ? "\\x" + ("0" + code.toString(16)).slice(-2) : "\\u" + ("000" + code.toString(16)).slice(-4);
    });
  }
  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = visible(text); }
    return node;
  }
  function clear(node) {
    while (node.firstChild) { node.removeChild(node.firstChild); }
    return node;
  }
  var faces = {};
  function face(tile, extra) {
    var key = (D.marked[tile] ? "c:" : "t:") + tile;
    if (!Object.prototype.hasOwnProperty.call(faces, key)) {
      var html = D.marked[tile] || D.tiles[tile];
      var made;
      if (html) { // a face the page's builder made (tile_html)
        var holder = document.createElement("div");
        holder.innerHTML = html;
        made = holder.firstChild;
      } else { // a tile the builder did not draw: its text
        made = element("span", "tile", tile);
        made.setAttribute("data-t", visible(tile));
      }
      faces[key] = made;
    }
    var node = faces[key].cloneNode(true);
    if (extra) { extra.split(" ").forEach(function (c) { node.classList.add(c); }); }
    return node;
  }
  function tileRow(tiles) {
    var row = element("span", "tiles");
    tiles.forEach(function (t) { row.appendChild(t); });
    return row;
  }
  // a tile's or a code's name in the page's language ("tile:5m", "code:invalid_win"), when
  // the labels give one (the Chinese pages), else as it is
  function named(tile) { return W["tile:" + tile] || tile; }
  // a declared suit's name (定缺: "m", "p" or "s") in the page's words
  function suitName(suit) { return suit ? W["suit_" + suit] || suit : ""; }
  function sentence(event) {
    if (!event) { return W.deal; }
    var values = {
      seat: event.seat, from: event.from, to: event.to, tile: named(event.tile),
      tiles: (event.tiles || []).map(named).join(" "), suit: suitName(event.suit)
    };
    return fill(W[event.kind] || event.kind, values);
  }
  function melds(cell, list) {
    list.forEach(function (m) {
      // a chow by its three tiles; a pong or kong by its tile, three or four times
      var shown = m.tiles && m.tiles.length ? m.tiles.slice() : [];
      if (!shown.length) {
        var size = m.kind === "pong" ? 3 : 4;
        for (var j = 0; j < size; j += 1) { shown.push(m.tile); }
      }
      var meld = element("span", "meld");
      meld.setAttribute("data-kind", visible(m.kind));
      meld.setAttribute("data-t", visible(m.tile));
      for (var i = 0; i < shown.length; i += 1) { meld.appendChild(face(shown[i])); }
      cell.appendChild(meld);
    });
  }
  function render(k) {
    var s = steps[k];
    document.getElementById("replay-step").textContent = String(k);
    var text = k === 0 ? W.deal : fill(W.event, { index: k - 1 }) + ": " + sentence(s.event);
    // the family's marks on the table: those with words follow the event's sentence
    s.marks.forEach(function (m) {
      if (m.label) { text += " · " + (W[m.label] || m.label) + (m.tile ? " " + named(m.tile) : ""); }
    });
    if (k === last && D.stopped) {
      text += " · " + fill(W.not_applied, { sentence: sentence(D.stopped) });
    }
    document.getElementById("replay-event").textContent = visible(text);
    document.getElementById("replay-wall").textContent = String(s.wall_left);
    document.getElementById("replay-turn").textContent = fill(W.seat, { seat: s.turn });
    var rows = document.querySelectorAll("#replay-table tbody tr[data-seat]");
    Array.prototype.forEach.call(rows, function (row) {
      var seat = parseInt(row.getAttribute("data-seat"), 10);
      var state = s.seats[seat];
      if (!state) { return; }
      row.classList.toggle("turn", s.turn === seat && s.phase !== "ended" && s.phase !== "won");
      var badges = clear(row.querySelector(".r-badges"));
      // a winner's badge; with several wins so far, the place of each of the seat's wins
      // in their order (#1, #2 ...; a seat that won twice, playing on, has two)
      var order = [];
      s.winners.forEach(function (w, i) { if (w === seat) { order.push(i + 1); } });
      if (order.length) {
        badges.appendChild(document.createTextNode(" "));
        var won = element("span", "badge green", s.winners.length > 1
          ? W.winner + " " + order.map(function (n) { return "#" + n; }).join(" ") : W.winner);
        won.setAttribute("data-order", order.join(" "));
        badges.appendChild(won);
      }
      // the suit the seat declared (定缺), once declared
      if (state.declared_suit) {
        badges.appendChild(document.createTextNode(" "));
        var suit = element("span", "badge void", fill(W["void"] || "{suit}", { suit: suitName(state.declared_suit) }));
        suit.setAttribute("data-suit", visible(state.declared_suit));
        badges.appendChild(suit);
      }
      // the family's marks on the seat (the snapshot's): a badge each, in the page's words
      state.marks.forEach(function (m) {
        if (!m.label) { return; } // data the panel does not draw
        badges.appendChild(document.createTextNode(" "));
        var badge = element("span", m["class"] ? "badge " + m["class"] : "badge",
          W[m.label] || m.label);
        if (m.tile) {
          badge.appendChild(document.createTextNode(" "));
          badge.appendChild(face(m.tile, "small"));
        }
        badges.appendChild(badge);
      });
      clear(row.querySelector(".r-concealed")).appendChild(
        tileRow(split(state.concealed).map(function (t) { return face(t); })));
      melds(clear(row.querySelector(".r-melds")), state.melds);
      clear(row.querySelector(".r-discards")).appendChild(tileRow(split(state.discards).map(function (d) {
        var claimed = d.charAt(d.length - 1) === "*";
        return face(claimed ? d.slice(0, -1) : d, claimed ? "small claimed" : "small");
      })));
    });
    var ledger = document.getElementById("replay-ledger");
    if (ledger) { ledger.hidden = k !== last; }
    // the settlement's items moved by this step's event (a kong's payment when it is made,
    // a win's when it is won); at the last step the whole settlement shows instead
    var paid = document.getElementById("replay-paid");
    if (paid) {
      var any = false;
      Array.prototype.forEach.call(paid.querySelectorAll("li[data-step]"), function (li) {
        var here = parseInt(li.getAttribute("data-step"), 10) === k;
        li.hidden = !here;
        any = any || here;
      });
      paid.hidden = !any || k === last;
    }
    Array.prototype.forEach.call(document.querySelectorAll("#replay-marks button"), function (b) {
      b.classList.toggle("here", parseInt(b.getAttribute("data-step"), 10) === k);
    });
  }
  function go(k) {
    current = Math.max(0, Math.min(last, k));
    slider.value = String(current);
    render(current);
  }
  function jump(k) {
    go(k);
    document.getElementById("replay").scrollIntoView();
  }
  document.getElementById("replay-first").addEventListener("click", function () { go(0); });
  document.getElementById("replay-prev").addEventListener("click", function () { go(current - 1); });
  document.getElementById("replay-next").addEventListener("click", function () { go(current + 1); });
  document.getElementById("replay-last").addEventListener("click", function () { go(last); });
  slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (e) {
    var target = e.target;
    if (target === slider) { return; } // the slider moves itself and reports "input"
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) { return; }
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last };
    if (Object.prototype.hasOwnProperty.call(moves, e.key)) {
      e.preventDefault();
      go(moves[e.key]);
    }
  });
  var marks = document.getElementById("replay-marks");
  if (D.marks.length) {
    var label = document.createElement("span");
    label.className = "note";
    label.textContent = visible(W.findings_at);
    marks.appendChild(label);
    D.marks.forEach(function (m) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "mark";
      b.setAttribute("data-step", String(m.step));
      b.textContent = visible((m.event === null ? "" : fill(W.event, { index: m.event }) + " · ") + (W["code:" + m.code] || m.code));
      b.addEventListener("click", function () { go(m.step); });
      marks.appendChild(b);
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("a[data-step]"), function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      jump(parseInt(a.getAttribute("data-step"), 10));
    });
  });
  go(0);
})();
