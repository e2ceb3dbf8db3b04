// SPDX-License-Identifier: MIT
/* vt_flame.js - the flame (or icicle) graph of `vramtrace flamegraph`
 * (docs/pictures.md). The data (JSON in #vt-data) are the nodes of the call tree in
 * preorder, largest child first: label, depth, bytes. A node's width is its bytes;
 * children sit side by side on their parent, outermost frame at the root. Click a
 * node to zoom to it (its ancestors stay, dimmed, across the full width); click an
 * ancestor or "Reset zoom" to go back. No libraries, no network. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('vt-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var box = $('vt-box'), cv = $('vt-chart'), tip = $('vt-tip'), zoomLabel = $('vt-range');
  var RH = 18, N = D.n.length;
  var W = 0, H = 0;
  var x = new Float64Array(N), end = new Int32Array(N), parent = new Int32Array(N);
  var zoom = 0, hover = -1;

  /* x offsets, parents and subtree ends from the preorder */
  (function layout() {
    var stack = [], next = [0];
    for (var i = 0; i < N; i++) {
      var d = D.d[i];
      while (stack.length > d) end[stack.pop()] = i;
      parent[i] = d ? stack[d - 1] : -1;
      x[i] = d ? next[d] : 0;
      next[d] = x[i] + D.v[i];
      next[d + 1] = x[i];
      stack.push(i);
    }
    while (stack.length) end[stack.pop()] = N;
  })();

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
    var k = D.k[i], r = hash(D.names[D.n[i]]);
    if (k === 255) return 'hsl(0,0%,78%)';
    if (k === 1) return 'hsl(' + (195 + 30 * r) + ',60%,' + (62 + 10 * r) + '%)';
    if (k === 2) return 'hsl(' + (265 + 25 * r) + ',45%,' + (68 + 8 * r) + '%)';
    return 'hsl(' + (10 + 42 * r) + ',' + (75 + 15 * r) + '%,' + (58 + 10 * r) + '%)';
  }
  function rowY(d) { return D.flame ? H - (d + 1) * RH : d * RH; }
  function isAncestor(a, b) { return a <= b && b < end[a]; }

  function setup() {
    var dpr = window.devicePixelRatio || 1;
    W = Math.max(480, box.clientWidth);
    H = (D.maxDepth + 1) * RH;
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(H * dpr);
    cv.style.width = W + 'px';
    cv.style.height = H + 'px';
    box.style.height = H + 'px';
    cv.getContext('2d').setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  /* the box of node i in pixels, or null when it is not shown */
  function rect(i) {
    var z0 = x[zoom], zv = D.v[zoom] || 1, sc = W / zv;
    if (isAncestor(i, zoom)) return { x: 0, w: W, dim: i !== zoom };
    if (!isAncestor(zoom, i)) return null;
    return { x: (x[i] - z0) * sc, w: D.v[i] * sc, dim: false };
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
      var y = rowY(D.d[i]);
      ctx.fillStyle = color(i);
      ctx.globalAlpha = r.dim ? 0.45 : 1;
      ctx.fillRect(r.x, y, Math.max(r.w - 0.5, 0.4), RH - 1);
      if (i === hover) {
        ctx.strokeStyle = '#000';
        ctx.strokeRect(r.x + 0.5, y + 0.5, Math.max(r.w - 1.5, 0), RH - 2);
      }
      if (r.w > 28) {
        var name = D.names[D.n[i]], max = Math.floor((r.w - 6) / 6.5);
        if (name.length > max) name = name.slice(0, Math.max(0, max - 1)) + '\u2026';
        ctx.fillStyle = '#000';
        ctx.fillText(name, r.x + 3, y + RH / 2);
      }
      ctx.globalAlpha = 1;
    }
    var zn = D.names[D.n[zoom]];
    zoomLabel.textContent = zoom ? 'zoomed to ' + zn + ': ' + fmtBytes(D.v[zoom]) + ' (' +
      (100 * D.v[zoom] / (D.v[0] || 1)).toFixed(1) + '% of all)' : 'all ' + fmtBytes(D.v[0]) + '; click a frame to zoom';
    cv.setAttribute('data-zoom', String(zoom));
  }

  function at(ev) {
    var b = cv.getBoundingClientRect(), px = ev.clientX - b.left, py = ev.clientY - b.top;
    var d = D.flame ? Math.floor((H - py) / RH) : Math.floor(py / RH);
    for (var i = 0; i < N; i++) {
      if (D.d[i] !== d) continue;
      var r = rect(i);
      if (r && px >= r.x && px < r.x + r.w) return { i: i, px: px, py: py };
    }
    return { i: -1, px: px, py: py };
  }

  function showTip(h) {
    if (h.i < 0) { tip.style.display = 'none'; return; }
    var i = h.i, det = D.details[D.n[i]];
    var s = '<b>' + esc(D.names[D.n[i]]) + '</b>' + (det ? '<div class="vt-detail">' + esc(det) + '</div>' : '') +
      esc(fmtBytes(D.v[i])) + ' (' + D.v[i] + ' bytes), ' + (100 * D.v[i] / (D.v[0] || 1)).toFixed(2) + '% of all';
    if (zoom) s += ', ' + (100 * D.v[i] / (D.v[zoom] || 1)).toFixed(2) + '% of the zoomed frame';
    tip.innerHTML = s;
    tip.style.display = 'block';
    var left = h.px + 14;
    if (left + tip.offsetWidth > W) left = Math.max(0, h.px - 14 - tip.offsetWidth);
    tip.style.left = left + 'px';
    tip.style.top = Math.max(0, h.py + 16) + 'px';
  }

  function zoomTo(i) { zoom = i; hover = -1; draw(); tip.style.display = 'none'; }
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
    for (var j = 1; j < N; j++) if (parent[j] === c) { c = j; if (D.v[j] < D.v[0]) break; }
    var b = cv.getBoundingClientRect(), rc = rect(c);
    r.target = c;
    if (rc && c > 0) {
      var ev = { clientX: b.left + rc.x + rc.w / 2, clientY: b.top + rowY(D.d[c]) + RH / 2, bubbles: true };
      cv.dispatchEvent(new MouseEvent('mousemove', ev));
      r.tooltip = tip.style.display === 'block' && tip.textContent.indexOf(D.names[D.n[c]]) >= 0;
      cv.dispatchEvent(new MouseEvent('click', ev));
      var z = rect(c);
      r.zoomed = zoom === c && z && Math.abs(z.w - W) < 0.5;
      r.label1 = zoomLabel.textContent;
      $('vt-reset').click();
      r.reset = zoom === 0 && zoomLabel.textContent === r.label0;
    } else {
      r.tooltip = r.zoomed = r.reset = true; /* nothing to zoom into: one frame */
    }
    r.errors = (window.vtErrors || []).slice();
    r.ok = r.painted > 100 && r.colors >= 2 && !!r.tooltip && !!r.zoomed && r.reset && r.errors.length === 0;
    var out = document.createElement('pre');
    out.id = 'vt-selftest';
    out.textContent = JSON.stringify(r);
    document.body.appendChild(out);
  }

  setup();
  draw();
  if (/[?&]selftest=1/.test(location.search)) selftest();
})();
