// SPDX-License-Identifier: MIT
/* vt_flame.js - the flame (or icicle) graph of `vramtrace flamegraph`
 * (docs/pictures.md). The data (JSON in #vt-data) are the nodes of the call tree in
 * preorder, largest child first: label, depth, bytes. A node's width is its bytes;
 * children sit side by side on their parent, outermost frame at the root. Click a
 * node to zoom to it (its ancestors stay, dimmed, across the full width); click an
 * ancestor or "Reset zoom" to go back. "Inverted" shows the tree built from the other
 * end: the roots are the innermost frames, where the memory was allocated, and under
 * each its callers. The search box highlights the frames whose label matches (a
 * regular expression, else plain text; any case) and says what share of the bytes
 * lies under them. No libraries, no network. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('vt-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var box = $('vt-box'), cv = $('vt-chart'), tip = $('vt-tip'), zoomLabel = $('vt-range');
  var searchBox = $('vt-search'), matchLabel = $('vt-match'), invertButton = $('vt-invert');
  var RH = 18;
  var W = 0, H = 0;
  /* The tree shown: G (names n, depths d, bytes v, kinds k, in preorder), its size N,
   * and from the preorder each node's x offset, parent and subtree end. */
  var normal = { n: D.n, d: D.d, v: D.v, k: D.k, maxDepth: D.maxDepth }, inverted = null;
  var G, N, x, end, parent;
  var zoom = 0, hover = -1, matched = null, query = null;

  function layout(t) {
    G = t;
    N = t.n.length;
    x = new Float64Array(N);
    end = new Int32Array(N);
    parent = new Int32Array(N);
    var stack = [], next = [0];
    for (var i = 0; i < N; i++) {
      var d = t.d[i];
      while (stack.length > d) end[stack.pop()] = i;
      parent[i] = d ? stack[d - 1] : -1;
      x[i] = d ? next[d] : 0;
      next[d] = x[i] + t.v[i];
      next[d + 1] = x[i];
      stack.push(i);
    }
    while (stack.length) end[stack.pop()] = N;
  }

  /* The inverted tree: each node's own bytes (not in its children) on the path from it
   * up to the root, read innermost first; paths that read alike merge. */
  function invert() {
    layout(normal);
    var kids = [[]], name = [D.n[0]], kind = [D.k[0]], val = [normal.v[0]], depth = [0], ix = new Map();
    for (var i = 1; i < N; i++) {
      var own = normal.v[i];
      for (var c = i + 1; c < end[i]; c = end[c]) own -= normal.v[c];
      if (own <= 0) continue;
      var at = 0;
      for (var p = i; p > 0; p = parent[p]) {
        var key = at + ':' + normal.n[p], ch = ix.get(key);
        if (ch === undefined) {
          ch = name.length;
          ix.set(key, ch);
          name.push(normal.n[p]); kind.push(normal.k[p]); val.push(0); depth.push(depth[at] + 1); kids.push([]);
          kids[at].push(ch);
        }
        val[ch] += own;
        at = ch;
      }
    }
    var t = { n: [], d: [], v: [], k: [], maxDepth: 0 }, todo = [0];
    while (todo.length) {
      var j = todo.pop();
      t.n.push(name[j]); t.d.push(depth[j]); t.v.push(val[j]); t.k.push(kind[j]);
      if (depth[j] > t.maxDepth) t.maxDepth = depth[j];
      /* largest first, as the C side sorts: pushed in reverse */
      kids[j].sort(function (a, b) { return val[a] - val[b] || D.names[name[b]].localeCompare(D.names[name[a]]); });
      for (var q = 0; q < kids[j].length; q++) todo.push(kids[j][q]);
    }
    return t;
  }

  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function fmtBytes(v) {
    if (v < 1024) return v + ' B';
    var u = 0;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + UNITS[u];
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  function hash(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return (h >>> 0) / 4294967296;
  }
  /* native frames warm, Python frames blue, scopes (layers, NVTX ranges) purple */
  function color(i) {
    if (matched && matched[i]) return 'rgb(230,0,230)';
    var k = G.k[i], r = hash(D.names[G.n[i]]);
    if (k === 255) return 'hsl(0,0%,78%)';
    if (k === 1) return 'hsl(' + (195 + 30 * r) + ',60%,' + (62 + 10 * r) + '%)';
    if (k === 2) return 'hsl(' + (265 + 25 * r) + ',45%,' + (68 + 8 * r) + '%)';
    return 'hsl(' + (10 + 42 * r) + ',' + (75 + 15 * r) + '%,' + (58 + 10 * r) + '%)';
  }
  function rowY(d) { return D.flame ? H - (d + 1) * RH : d * RH; }
  function label(i) { return D.names[G.n[i]]; }
  function isAncestor(a, b) { return a <= b && b < end[a]; }

  function setup() {
    var dpr = window.devicePixelRatio || 1;
    W = Math.max(480, box.clientWidth);
    H = (G.maxDepth + 1) * RH;
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(H * dpr);
    cv.style.width = W + 'px';
    cv.style.height = H + 'px';
    box.style.height = H + 'px';
    cv.getContext('2d').setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  /* the box of node i in pixels, or null when it is not shown */
  function rect(i) {
    var z0 = x[zoom], zv = G.v[zoom] || 1, sc = W / zv;
    if (isAncestor(i, zoom)) return { x: 0, w: W, dim: i !== zoom };
    if (!isAncestor(zoom, i)) return null;
    return { x: (x[i] - z0) * sc, w: G.v[i] * sc, dim: false };
  }

  function draw() {
    var ctx = cv.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (var i = 0; i < N; i++) {
      var r = rect(i);
      if (!r) { if (!isAncestor(i, zoom)) i = Math.max(i, end[i] - 1); continue; }
      if (r.w < 0.4) { i = end[i] - 1; continue; }   /* too narrow: so is all below it */
      var y = rowY(G.d[i]);
      ctx.fillStyle = color(i);
      ctx.globalAlpha = r.dim ? 0.45 : 1;
      ctx.fillRect(r.x, y, Math.max(r.w - 0.5, 0.4), RH - 1);
      if (i === hover) {
        ctx.strokeStyle = '#000';
        ctx.strokeRect(r.x + 0.5, y + 0.5, Math.max(r.w - 1.5, 0), RH - 2);
      }
      if (r.w > 28) {
        var name = D.names[G.n[i]], max = Math.floor((r.w - 6) / 6.5);
        if (name.length > max) name = name.slice(0, Math.max(0, max - 1)) + '\u2026';
        ctx.fillStyle = '#000';
        ctx.fillText(name, r.x + 3, y + RH / 2);
      }
      ctx.globalAlpha = 1;
    }
    var zn = D.names[G.n[zoom]];
    zoomLabel.textContent = zoom ? 'zoomed to ' + zn + ': ' + fmtBytes(G.v[zoom]) + ' (' +
      (100 * G.v[zoom] / (G.v[0] || 1)).toFixed(1) + '% of all)' : 'all ' + fmtBytes(G.v[0]) + '; click a frame to zoom';
    cv.setAttribute('data-zoom', String(zoom));
  }

  function at(ev) {
    var b = cv.getBoundingClientRect(), px = ev.clientX - b.left, py = ev.clientY - b.top;
    var d = D.flame ? Math.floor((H - py) / RH) : Math.floor(py / RH);
    for (var i = 0; i < N; i++) {
      if (G.d[i] !== d) continue;
      var r = rect(i);
      if (r && px >= r.x && px < r.x + r.w) return { i: i, px: px, py: py };
    }
    return { i: -1, px: px, py: py };
  }

  function showTip(h) {
    if (h.i < 0) { tip.style.display = 'none'; return; }
    var i = h.i, det = D.details[G.n[i]];
    var s = '<b>' + esc(D.names[G.n[i]]) + '</b>' + (det ? '<div class="vt-detail">' + esc(det) + '</div>' : '') +
      esc(fmtBytes(G.v[i])) + ' (' + G.v[i] + ' bytes), ' + (100 * G.v[i] / (G.v[0] || 1)).toFixed(2) + '% of all';
    if (zoom) s += ', ' + (100 * G.v[i] / (G.v[zoom] || 1)).toFixed(2) + '% of the zoomed frame';
    tip.innerHTML = s;
    tip.style.display = 'block';
    var left = h.px + 14;
    if (left + tip.offsetWidth > W) left = Math.max(0, h.px - 14 - tip.offsetWidth);
    tip.style.left = left + 'px';
    tip.style.top = Math.max(0, h.py + 16) + 'px';
  }

  function zoomTo(i) { zoom = i; hover = -1; draw(); tip.style.display = 'none'; }

  /* ---------------------------------------------------------------- search */
  /* The frames whose label matches q as a regular expression or holds it as plain text
   * (frame names are full of '+', '(' and '.'), in any case. The matched bytes are those under a matching frame that has
   * no matching ancestor, so that nothing counts twice (flamegraph.pl's "Matched"). */
  function search(q) {
    query = q || null;
    matched = null;
    var count = 0, bytes = 0;
    if (query) {
      var re = null, text = query.toLowerCase();
      try { re = new RegExp(query, 'i'); } catch (e) { re = null; }
      matched = new Uint8Array(N);
      for (var i = 1; i < N; i++) {
        var l = label(i);
        if (!(re && re.test(l)) && l.toLowerCase().indexOf(text) < 0) continue;
        matched[i] = 1;
        count++;
        var p = parent[i];
        while (p > 0 && !matched[p]) p = parent[p];
        if (p <= 0) bytes += G.v[i];
      }
    }
    var pct = (100 * bytes / (G.v[0] || 1)).toFixed(1);
    matchLabel.textContent = query ? 'Matched: ' + pct + '% (' + fmtBytes(bytes) + ' in ' + count + ' frame' +
      (count === 1 ? '' : 's') + ')' : '';
    matchLabel.setAttribute('data-count', String(count));
    matchLabel.setAttribute('data-bytes', String(bytes));
    draw();
  }
  searchBox.addEventListener('input', function () { search(searchBox.value); });
  searchBox.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') { searchBox.value = ''; search(''); } });

  /* ---------------------------------------------------------------- inverted */
  function setInverted(on) {
    if (on && !inverted) inverted = invert();
    layout(on ? inverted : normal);
    invertButton.textContent = on ? 'Inverted: on' : 'Inverted: off';
    invertButton.setAttribute('aria-pressed', on ? 'true' : 'false');
    zoom = 0;
    hover = -1;
    setup();
    search(query);
  }
  invertButton.addEventListener('click', function () { setInverted(G === normal); });
  cv.addEventListener('click', function (ev) { var h = at(ev); if (h.i >= 0) zoomTo(h.i); });
  cv.addEventListener('mousemove', function (ev) {
    var h = at(ev);
    if (h.i !== hover) { hover = h.i; draw(); }
    showTip(h);
  });
  cv.addEventListener('mouseleave', function () { hover = -1; draw(); tip.style.display = 'none'; });
  $('vt-reset').addEventListener('click', function () { zoomTo(0); });
  window.addEventListener('resize', function () { setup(); draw(); });

  /* ?selftest=1: clicks and hovers as a user would and writes what it saw into
   * #vt-selftest (tests/html/browser.py reads it through --dump-dom). */
  function selftest() {
    var r = { errors: (window.vtErrors || []).slice() };
    var img = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data, colors = {}, painted = 0;
    for (var i = 0; i < img.length; i += 4) {
      var k = (img[i] << 16) | (img[i + 1] << 8) | img[i + 2];
      if (k !== 0xffffff) painted++;
      colors[k] = 1;
    }
    r.painted = painted;
    r.colors = Object.keys(colors).length;
    r.nodes = N;
    r.label0 = zoomLabel.textContent;
    /* the deepest node on the largest path whose parent is narrower than the root */
    var c = 0;
    for (var j = 1; j < N; j++) if (parent[j] === c) { c = j; if (G.v[j] < G.v[0]) break; }
    var b = cv.getBoundingClientRect(), rc = rect(c);
    r.target = c;
    if (rc && c > 0) {
      var ev = { clientX: b.left + rc.x + rc.w / 2, clientY: b.top + rowY(G.d[c]) + RH / 2, bubbles: true };
      cv.dispatchEvent(new MouseEvent('mousemove', ev));
      r.tooltip = tip.style.display === 'block' && tip.textContent.indexOf(D.names[G.n[c]]) >= 0;
      cv.dispatchEvent(new MouseEvent('click', ev));
      var z = rect(c);
      r.zoomed = zoom === c && z && Math.abs(z.w - W) < 0.5;
      r.label1 = zoomLabel.textContent;
      $('vt-reset').click();
      r.reset = zoom === 0 && zoomLabel.textContent === r.label0;
    } else {
      r.tooltip = r.zoomed = r.reset = true; /* nothing to zoom into: one frame */
    }
    /* search (?q=REGEX, else the largest frame under the root) and the inverted view */
    var mq = /[?&]q=([^&]*)/.exec(location.search);
    var q = mq ? decodeURIComponent(mq[1]) : N > 1 ? label(1) : '';
    var seen = function () {
      var roots = [];
      for (var i = 1; i < N; i++) if (G.d[i] === 1) roots.push({ name: label(i), bytes: G.v[i] });
      return { count: +matchLabel.getAttribute('data-count'), bytes: +matchLabel.getAttribute('data-bytes'),
               label: matchLabel.textContent, roots: roots.slice(0, 8), nroots: roots.length, total: G.v[0] };
    };
    searchBox.value = q;
    searchBox.dispatchEvent(new Event('input'));
    r.query = q;
    r.search = seen();
    var pink = 0, img2 = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    for (i = 0; i < img2.length; i += 4) if (img2[i] === 230 && img2[i + 1] === 0 && img2[i + 2] === 230) pink++;
    r.search.pinkPixels = pink;
    /* ?q2=REGEX: a second search, for frames that lie under one another */
    var mq2 = /[?&]q2=([^&]*)/.exec(location.search);
    if (mq2) {
      searchBox.value = decodeURIComponent(mq2[1]);
      searchBox.dispatchEvent(new Event('input'));
      r.search2 = seen();
      searchBox.value = q;
      searchBox.dispatchEvent(new Event('input'));
    }
    invertButton.click();
    r.inverted = seen();
    r.inverted.pressed = invertButton.getAttribute('aria-pressed');
    invertButton.click();
    r.back = seen();
    searchBox.value = '';
    searchBox.dispatchEvent(new Event('input'));
    r.cleared = matchLabel.textContent === '' && !matched;
    r.errors = (window.vtErrors || []).slice();
    r.ok = r.painted > 100 && r.colors >= 2 && !!r.tooltip && !!r.zoomed && r.reset && r.errors.length === 0 &&
      (!q || (r.search.count > 0 && r.search.pinkPixels > 0)) && r.inverted.bytes === r.search.bytes &&
      r.inverted.total === r.search.total && r.back.count === r.search.count && r.cleared;
    var out = document.createElement('pre');
    out.id = 'vt-selftest';
    out.textContent = JSON.stringify(r);
    document.body.appendChild(out);
  }

  layout(normal);
  if (D.inverted) setInverted(true);
  else { setup(); draw(); }
  if (/[?&]selftest=1/.test(location.search)) selftest();
})();
