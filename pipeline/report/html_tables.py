"""The HTML report's interactive parts, in plain JavaScript inlined in the page (it opens from ``file://`` with no
network): every ``<table class="data">`` sorts by a click on a column's header, filters by a search box and
shows :data:`PAGE_ROWS` rows a page; a player's page is drawn from the page's own JSON data when the address
ends in ``#player=N``, and a game explained hand by hand (``rebelote show``'s text, kept in the same JSON) when
it ends in ``#game=ID`` (a player page's game ids link there).

The address also chooses a sort, so a sorted view can be linked to: ``#sort=TABLE:COLUMN`` (ascending) or
``#sort=TABLE:-COLUMN`` (descending), TABLE being the table's id (its section's id). Numbers sort as numbers, by
the value in the cell's ``data-v`` attribute where the shown text is rounded or a percentage; texts with numbers
in them compare those as numbers (``80`` before ``100``, ``5/8`` before ``10/12``); empty cells sort last.

Every text taken from the data is set with ``textContent``, never as HTML: a player named ``<img ...>`` is text.
"""

from __future__ import annotations

#: rows a table shows at once
PAGE_ROWS = 25

CSS = """
.tbar { display: flex; gap: 8px; align-items: center; margin: 6px 0; font-size: 12px; color: var(--muted); }
.tbar input { font: inherit; padding: 2px 6px; border: 1px solid var(--line); border-radius: 4px; width: 220px; }
.tbar button { font: inherit; border: 1px solid var(--line); background: #fff; border-radius: 4px; cursor: pointer; }
.tbar button:disabled { opacity: .4; cursor: default; }
table.data th { cursor: pointer; user-select: none; }
table.data th[aria-sort=ascending]::after { content: " ▲"; font-size: 10px; }
table.data th[aria-sort=descending]::after { content: " ▼"; font-size: 10px; }
td a { color: var(--accent); text-decoration: none; }
#player-page[hidden] { display: none; }
pre.explained { font-size: 12px; line-height: 1.35; background: #f6f8fa; border: 1px solid var(--line);
  border-radius: 6px; padding: 10px; overflow-x: auto; }
body.player-view main > section:not(#player-page) { display: none; }
"""

JS = """
(function () {
  'use strict';
  var PAGE = %(page)d;
  function value(td) {
    var v = td.getAttribute('data-v');
    if (v !== null) { return v === '' ? null : parseFloat(v); }
    var t = td.textContent;
    if (t === '') { return null; }
    return td.classList.contains('num') ? parseFloat(t.replace(/,/g, '')) : t;
  }
  function setup(table) {
    if (table.rebeloteSort) { return; }
    var tbody = table.tBodies[0];
    var all = Array.prototype.slice.call(tbody.rows);
    if (all.length === 1 && all[0].cells[0].classList.contains('empty')) { return; }
    var state = {shown: all, page: 0};
    var bar = document.createElement('div');
    bar.className = 'tbar';
    var search = document.createElement('input');
    search.type = 'search';
    search.placeholder = 'search this table';
    var prev = document.createElement('button'), next = document.createElement('button');
    prev.textContent = '\\u2039 previous';
    next.textContent = 'next \\u203a';
    var info = document.createElement('span');
    bar.appendChild(search); bar.appendChild(prev); bar.appendChild(next); bar.appendChild(info);
    var wrap = table.parentNode;
    wrap.parentNode.insertBefore(bar, wrap);
    function render() {
      var pages = Math.max(1, Math.ceil(state.shown.length / PAGE));
      state.page = Math.min(state.page, pages - 1);
      var rows = state.shown.slice(state.page * PAGE, (state.page + 1) * PAGE);
      while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
      rows.forEach(function (r) { tbody.appendChild(r); });
      info.textContent = state.shown.length + ' of ' + all.length + ' rows' +
        (pages > 1 ? ', page ' + (state.page + 1) + ' of ' + pages : '');
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
    }
    search.addEventListener('input', function () {
      var q = search.value.toLowerCase();
      state.shown = all.filter(function (r) { return r.textContent.toLowerCase().indexOf(q) >= 0; });
      state.page = 0;
      render();
    });
    prev.addEventListener('click', function () { state.page -= 1; render(); });
    next.addEventListener('click', function () { state.page += 1; render(); });
    var heads = table.tHead.rows[0].cells;
    function sortBy(i, desc) {
      var keyed = all.map(function (r, n) { return [value(r.cells[i]), n, r]; });
      keyed.sort(function (a, b) {
        if (a[0] === null || b[0] === null) { return (a[0] === null) - (b[0] === null) || a[1] - b[1]; }
        var c = (typeof a[0] === 'number' && typeof b[0] === 'number') ? a[0] - b[0]
          : String(a[0]).localeCompare(String(b[0]), undefined, {numeric: true});
        return (desc ? -c : c) || a[1] - b[1];
      });
      all = keyed.map(function (k) { return k[2]; });
      for (var j = 0; j < heads.length; j++) { heads[j].removeAttribute('aria-sort'); }
      heads[i].setAttribute('aria-sort', desc ? 'descending' : 'ascending');
      search.dispatchEvent(new Event('input'));
    }
    Array.prototype.forEach.call(heads, function (th, i) {
      th.addEventListener('click', function () {
        sortBy(i, th.getAttribute('aria-sort') === 'ascending' || (th.getAttribute('aria-sort') === null
                                                                    && th.classList.contains('num')));
      });
    });
    table.rebeloteSort = function (name, desc) {
      for (var i = 0; i < heads.length; i++) {
        if (heads[i].textContent === name) { sortBy(i, desc); return true; }
      }
      return false;
    };
    render();
  }
  function data() { return JSON.parse(document.getElementById('player-data').textContent); }
  function cell(tr, text, num, games) {
    var td = document.createElement('td');
    var t = text === null || text === undefined ? '' : String(text);
    if (games && Object.prototype.hasOwnProperty.call(games, t)) {
      var a = document.createElement('a');
      a.href = '#game=' + encodeURIComponent(t); a.textContent = t;
      td.appendChild(a);
    } else {
      td.textContent = t;
    }
    if (num) { td.className = 'num'; td.setAttribute('data-v', text === null ? '' : text); }
    tr.appendChild(td);
  }
  function table(columns, rows, id, games) {
    var wrap = document.createElement('div');
    wrap.className = 'table-wrap';
    var t = document.createElement('table');
    t.className = 'data';
    if (id) { t.id = id; }
    var head = t.createTHead().insertRow();
    columns.forEach(function (c) {
      var th = document.createElement('th');
      th.textContent = c[0];
      if (c[1]) { th.className = 'num'; }
      head.appendChild(th);
    });
    var body = t.createTBody();
    if (!rows.length) {
      var tr = body.insertRow(), td = document.createElement('td');
      td.colSpan = columns.length; td.className = 'empty'; td.textContent = 'no rows';
      tr.appendChild(td);
    }
    rows.forEach(function (r) {
      var tr = body.insertRow();
      columns.forEach(function (c, i) { cell(tr, r[i], c[1], c[2] === 'game' ? games : null); });
    });
    wrap.appendChild(t);
    return wrap;
  }
  function heading(text, level) {
    var h = document.createElement(level || 'h3');
    h.textContent = text;
    return h;
  }
  function openView(page) {
    while (page.firstChild) { page.removeChild(page.firstChild); }
    page.hidden = false;
    document.body.classList.add('player-view');
  }
  function showGame(id) {
    var games = data().games || {}, page = document.getElementById('player-page');
    if (!Object.prototype.hasOwnProperty.call(games, id)) { return false; }
    openView(page);
    page.appendChild(heading('Game ' + id, 'h2'));
    var back = document.createElement('p'), a = document.createElement('a');
    a.href = '#players'; a.textContent = '\u2190 back';
    a.addEventListener('click', function (e) { if (history.length > 1) { e.preventDefault(); history.back(); } });
    back.appendChild(a);
    page.appendChild(back);
    var pre = document.createElement('pre');
    pre.className = 'explained'; pre.textContent = games[id];
    page.appendChild(pre);
    window.scrollTo(0, 0);
    return true;
  }
  function showPlayer(n) {
    var all = data(), p = all.players[n], page = document.getElementById('player-page');
    if (!p) { return false; }
    openView(page);
    page.appendChild(heading(p.name + (p.source ? ' \\u00b7 ' + p.source : ''), 'h2'));
    var back = document.createElement('p');
    var a = document.createElement('a');
    a.href = '#players'; a.textContent = '\\u2190 all players';
    back.appendChild(a);
    page.appendChild(back);
    var cards = document.createElement('div');
    cards.className = 'cards';
    p.cards.forEach(function (c) {
      var d = document.createElement('div'), b = document.createElement('b'), s = document.createElement('span');
      d.className = 'card'; b.textContent = c[1]; s.textContent = c[0];
      d.appendChild(b); d.appendChild(s); cards.appendChild(d);
    });
    page.appendChild(cards);
    if (p.trail.x.length) {
      page.appendChild(heading('Rating after each game'));
      var div = document.createElement('div');
      div.id = 'fig-player-rating';
      div.className = 'plot';
      page.appendChild(div);
      Plotly.newPlot(div, [
        {x: p.trail.x, y: p.trail.lo, mode: 'lines', line: {width: 0}, showlegend: false, hoverinfo: 'skip'},
        {x: p.trail.x, y: p.trail.hi, mode: 'lines', line: {width: 0}, fill: 'tonexty',
         fillcolor: 'rgba(31,111,235,0.15)', name: 'rating \\u00b1 uncertainty'},
        {x: p.trail.x, y: p.trail.mu, mode: 'lines', line: {color: '#1f6feb'}, name: 'rating'}],
        {height: 320, margin: {l: 50, r: 20, t: 10, b: 40}, xaxis: {title: {text: 'games played'}},
         yaxis: {title: {text: 'rating (mu)'}}, legend: {orientation: 'h'}},
        {displaylogo: false, responsive: true});
    }
    p.tables.forEach(function (t) {
      page.appendChild(heading(t.title));
      if (t.note) { var note = document.createElement('p'); note.className = 'note'; note.textContent = t.note; page.appendChild(note); }
      var w = table(t.columns, t.rows, t.id, all.games || {});
      page.appendChild(w);
      setup(w.firstChild);
    });
    window.scrollTo(0, 0);
    return true;
  }
  function route() {
    var h;
    try { h = decodeURIComponent(location.hash.slice(1)); } catch (e) { h = location.hash.slice(1); }
    var page = document.getElementById('player-page');
    var m = /^player=(\\d+)$/.exec(h);
    if (m && showPlayer(parseInt(m[1], 10))) { return; }
    m = /^game=(.+)$/.exec(h);
    if (m && showGame(m[1])) { return; }
    if (page) { page.hidden = true; }
    document.body.classList.remove('player-view');
    m = /^sort=([\\w-]+):(-?)(.+)$/.exec(h);
    if (m) {
      var t = document.getElementById('table-' + m[1]);
      if (t && t.rebeloteSort && t.rebeloteSort(m[3], m[2] === '-')) { t.scrollIntoView(); }
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.data'), setup);
  window.addEventListener('hashchange', route);
  route();
})();
""" % {"page": PAGE_ROWS}
