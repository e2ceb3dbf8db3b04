// SPDX-License-Identifier: MIT
/* vt_timeline.js - the chart of `vramtrace timeline` (docs/pictures.md).
 *
 * The data (JSON in #vt-data) are buckets: for each, the lowest and highest total of
 * the traced device memory in its time range, and every series' bytes at the moment
 * of the highest. A pixel column covers one or more buckets; it shows the bucket with
 * the highest total among them: the bands are the series then, so the top of the
 * stack is the highest total in the column, and the lighter part of the column lies
 * above the lowest total in it (memory was that high for part of the column only).
 * The peak can never fall between columns. No libraries, no network. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('vt-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  var box = $('vt-box'), main = $('vt-chart'), over = $('vt-overlay'), tip = $('vt-tip');
  var rangeLabel = $('vt-range');
  var M = { l: 76, r: 18, t: 22, b: 36 };
  var H = 440;
  var W = 0, PW = 0, PH = H - M.t - M.b;
  var T0 = D.t0, T1 = D.t1 + 1;            /* the data cover [T0, T1) */
  /* It opens on the allocations' span (view0, view1), the whole run one click away. */
  var H0 = D.view0 !== undefined ? Math.max(T0, D.view0) : T0;
  var H1 = D.view1 !== undefined ? Math.min(T1, D.view1) : T1;
  if (!(H1 > H0)) { H0 = T0; H1 = T1; }
  var view = { a: H0, b: H1 };
  var hidden = D.series.map(function () { return false; });
  var cols = [];
  var ymax = 1;
  var drag = null;
  var S = D.stacks || null;   /* the top sites at each bucket's highest and lowest moment */
  var sel = null;             /* the moment shown in the panel: { t, st, what } */

  /* ---------------------------------------------------------------- units */
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function fmtBytes(v) {
    if (v < 1024) return v + ' B';
    var u = 0;
    while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    return (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + UNITS[u];
  }
  function unitOf(a) {
    return a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
  }
  /* res: the smallest difference the text must show (default: 4 digits) */
  function fmtTime(ns, res, unit) {
    if (ns === 0 && !res) return '0 s';
    var u = unit || unitOf(Math.abs(ns) || res || 0), v = ns / u[0], a = Math.abs(v);
    var d = res ? Math.ceil(-Math.log10(res / u[0]) - 1e-9) : a >= 100 ? 1 : a >= 10 ? 2 : 3;
    return v.toFixed(Math.max(0, Math.min(9, d))) + ' ' + u[1];
  }
  /* axis ticks, all in the unit of the step so that they read alike */
  function fmtTick(t, step) {
    var u = unitOf(step), s = step / u[0], d = 0;
    while (d < 9 && Math.abs(s * Math.pow(10, d) - Math.round(s * Math.pow(10, d))) > 1e-6) d++;
    return (t / u[0]).toFixed(d) + ' ' + u[1];
  }
  function niceStep(range, n) {
    var raw = range / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
  }
  /* round steps in the largest binary unit the range spans: 20 GiB, 1 GiB, 0.5 GiB,
   * 0.25 GiB (256 MiB)... below one unit, powers of two */
  function byteStep(range, n) {
    var u = 1;
    while (range / (u * 1024) >= 1 && u < Math.pow(1024, 5)) u *= 1024;
    var raw = range / u / n;
    var s = raw >= 1 ? niceStep(range / u, n) : Math.pow(2, Math.ceil(Math.log2(raw)));
    return Math.max(1, s * u);
  }

  /* ---------------------------------------------------------------- data */
  var NB = D.n, SPAN = D.t1 - D.t0 + 1;
  function bucketOf(t) {
    var b = Math.floor((t - T0) * NB / SPAN);
    return b < 0 ? 0 : b >= NB ? NB - 1 : b;
  }
  function X(t) { return M.l + (t - view.a) * PW / (view.b - view.a); }
  function T(x) { return view.a + (x - M.l) * (view.b - view.a) / PW; }
  function Y(v) { return M.t + PH - v * PH / ymax; }

  /* One pixel column: the bucket with the highest total among those it covers. */
  function columns() {
    cols = [];
    var per = (view.b - view.a) / PW;
    for (var x = 0; x < PW; x++) {
      var ta = view.a + x * per, tb = ta + per;
      if (tb <= T0 || ta >= T1) { cols.push(null); continue; }
      var b0 = bucketOf(Math.max(ta, T0)), b1 = bucketOf(Math.min(tb, T1) - 1e-6);
      if (b1 < b0) b1 = b0;
      var best = b0, mn = D.min[b0], nv = -1;
      for (var b = b0; b <= b1; b++) {
        if (D.max[b] > D.max[best]) best = b;
        if (D.min[b] < mn) mn = D.min[b];
        if (D.nvml && D.nvml[b] !== null && D.nvml[b] > nv) nv = D.nvml[b];
      }
      var top = 0;
      for (var s = 0; s < D.series.length; s++) if (!hidden[s]) top += D.v[s][best];
      cols.push({ b0: b0, b1: b1, b: best, min: mn, max: D.max[best], top: top, nvml: nv });
    }
  }

  /* ---------------------------------------------------------------- drawing */
  function setup() {
    var dpr = window.devicePixelRatio || 1;
    W = Math.max(480, box.clientWidth);
    PW = W - M.l - M.r;
    [main, over].forEach(function (c) {
      c.width = Math.round(W * dpr);
      c.height = Math.round(H * dpr);
      c.style.width = W + 'px';
      c.style.height = H + 'px';
      c.getContext('2d').setTransform(dpr, 0, 0, dpr, 0, 0);
    });
    box.style.height = H + 'px';
  }

  function draw() {
    columns();
    var ctx = main.getContext('2d');
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    ymax = 1;
    var allShown = hidden.every(function (h) { return !h; });
    cols.forEach(function (c) {
      if (!c) return;
      ymax = Math.max(ymax, allShown ? c.max : c.top, c.nvml);
    });
    if (D.peakT >= view.a && D.peakT < view.b && allShown) ymax = Math.max(ymax, D.peak);
    ymax *= 1.08;

    /* grid and y axis */
    ctx.font = '11px system-ui, sans-serif';
    ctx.strokeStyle = '#e4e4e4';
    ctx.fillStyle = '#444';
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    var ys = byteStep(ymax, 6);
    for (var v = 0; v <= ymax; v += ys) {
      var y = Math.round(Y(v)) + 0.5;
      ctx.beginPath(); ctx.moveTo(M.l, y); ctx.lineTo(M.l + PW, y); ctx.stroke();
      ctx.fillText(fmtBytes(v), M.l - 6, y);
    }
    /* x axis */
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    var xs = niceStep(view.b - view.a, Math.max(2, Math.floor(PW / 110)));
    for (var t = Math.ceil(view.a / xs) * xs; t < view.b; t += xs) {
      var x = Math.round(X(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, M.t); ctx.lineTo(x, M.t + PH); ctx.stroke();
      ctx.fillText(fmtTick(t, xs), x, M.t + PH + 6);
    }

    /* the stacked bands, one polygon per series, in steps of one pixel column */
    var cum = cols.map(function () { return 0; });
    for (var s = 0; s < D.series.length; s++) {
      if (hidden[s]) continue;
      var vals = D.v[s];
      ctx.beginPath();
      var started = false;
      for (var i = 0; i < PW; i++) {
        var c = cols[i];
        if (!c) continue;
        var yt = Y(cum[i] + vals[c.b]);
        if (!started) { ctx.moveTo(M.l + i, yt); started = true; } else ctx.lineTo(M.l + i, yt);
        ctx.lineTo(M.l + i + 1, yt);
      }
      for (i = PW - 1; i >= 0; i--) {
        c = cols[i];
        if (!c) continue;
        var yb = Y(cum[i]);
        ctx.lineTo(M.l + i + 1, yb);
        ctx.lineTo(M.l + i, yb);
        cum[i] += vals[c.b];
      }
      ctx.closePath();
      ctx.fillStyle = D.series[s].color;
      ctx.fill();
    }
    /* above the lowest total of a column, memory was that high for part of it only */
    if (allShown) {
      ctx.fillStyle = 'rgba(255,255,255,0.45)';
      for (i = 0; i < PW; i++) {
        c = cols[i];
        if (c && c.max > c.min) ctx.fillRect(M.l + i, Y(c.max), 1, Y(c.min) - Y(c.max));
      }
    }
    /* the top of the stack */
    ctx.strokeStyle = 'rgba(0,0,0,0.55)';
    ctx.beginPath();
    started = false;
    for (i = 0; i < PW; i++) {
      c = cols[i];
      if (!c) { started = false; continue; }
      yt = Y(allShown ? c.max : c.top);
      if (!started) { ctx.moveTo(M.l + i, yt); started = true; } else ctx.lineTo(M.l + i, yt);
      ctx.lineTo(M.l + i + 1, yt);
    }
    ctx.stroke();

    /* NVML: its highest sample in each column, joined across columns without one */
    if (D.nvml) {
      ctx.strokeStyle = '#111';
      ctx.lineWidth = 1.5;
      ctx.setLineDash([5, 3]);
      ctx.beginPath();
      started = false;
      for (i = 0; i < PW; i++) {
        c = cols[i];
        if (!c || c.nvml < 0) continue;
        if (!started) { ctx.moveTo(M.l + i + 0.5, Y(c.nvml)); started = true; } else ctx.lineTo(M.l + i + 0.5, Y(c.nvml));
      }
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.lineWidth = 1;
    }

    /* OOMs */
    D.ooms.forEach(function (o) {
      if (o.t < view.a || o.t >= view.b) return;
      var x = Math.round(X(o.t)) + 0.5;
      ctx.strokeStyle = 'rgba(200,0,0,0.6)';
      ctx.beginPath(); ctx.moveTo(x, M.t); ctx.lineTo(x, M.t + PH); ctx.stroke();
      ctx.fillStyle = '#c00';
      ctx.beginPath(); ctx.moveTo(x - 6, M.t - 10); ctx.lineTo(x + 6, M.t - 10); ctx.lineTo(x, M.t); ctx.closePath(); ctx.fill();
    });

    /* the program's marks (vramtrace.mark()): a dashed line, the name at its foot */
    ctx.font = '11px system-ui, sans-serif';
    (D.marks || []).forEach(function (m) {
      if (m.t < view.a || m.t >= view.b) return;
      var x = Math.round(X(m.t)) + 0.5;
      ctx.strokeStyle = 'rgba(40,60,140,0.7)';
      ctx.setLineDash([2, 3]);
      ctx.beginPath(); ctx.moveTo(x, M.t); ctx.lineTo(x, M.t + PH); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#283c8c';
      ctx.fillText(m.name, Math.min(x + 3, M.l + PW - ctx.measureText(m.name).width), M.t + PH - 4);
    });

    /* the peak */
    if (D.peak > 0 && D.peakT >= view.a && D.peakT < view.b && allShown) {
      var px = Math.round(X(D.peakT)) + 0.5, py = Y(D.peak);
      ctx.strokeStyle = '#d00';
      ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(px, M.t); ctx.lineTo(px, M.t + PH); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = '#d00';
      ctx.beginPath(); ctx.arc(px, py, 4, 0, 2 * Math.PI); ctx.fill();
      var label = 'peak ' + fmtBytes(D.peak) + ' at ' + fmtTime(D.peakT);
      ctx.font = 'bold 12px system-ui, sans-serif';
      var tw = ctx.measureText(label).width;
      ctx.textAlign = px + 8 + tw < M.l + PW ? 'left' : 'right';
      ctx.textBaseline = 'bottom';
      var lx = ctx.textAlign === 'left' ? px + 8 : px - 8, ly = Math.max(M.t + 14, py - 6);
      ctx.lineWidth = 3;
      ctx.strokeStyle = 'rgba(255,255,255,0.85)';
      ctx.strokeText(label, lx, ly);
      ctx.lineWidth = 1;
      ctx.fillText(label, lx, ly);
    }

    /* the moment whose sites the panel lists */
    if (sel && sel.t >= view.a && sel.t < view.b) {
      var sx = Math.round(X(sel.t)) + 0.5;
      ctx.strokeStyle = '#222';
      ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.moveTo(sx, M.t); ctx.lineTo(sx, M.t + PH); ctx.stroke();
      ctx.lineWidth = 1;
      ctx.fillStyle = '#222';
      ctx.beginPath(); ctx.arc(sx, Y(S.total[sel.st]), 3.5, 0, 2 * Math.PI); ctx.fill();
    }

    /* frame */
    ctx.strokeStyle = '#888';
    ctx.strokeRect(M.l + 0.5, M.t + 0.5, PW, PH);
    var res = (view.b - view.a) / 1000;
    rangeLabel.textContent = 'showing ' + fmtTime(view.a, res, unitOf(view.b)) + ' \u2013 ' + fmtTime(view.b, res) +
      ' of ' + fmtTime(T0) + ' \u2013 ' + fmtTime(T1) + '; one pixel column = ' +
      fmtTime((view.b - view.a) / PW) + ', one bucket = ' + fmtTime(SPAN / NB);
    main.setAttribute('data-view', view.a + ',' + view.b);
  }

  /* ---------------------------------------------------------------- zoom */
  function zoomTo(a, b) {
    var minSpan = Math.min(SPAN, Math.max(2 * SPAN / NB, 1));
    if (b - a < minSpan) { var m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
    if (a < T0) { b += T0 - a; a = T0; }
    if (b > T1) { a -= b - T1; b = T1; }
    view.a = Math.max(T0, a);
    view.b = Math.min(T1, b);
    draw();
    hideTip();
  }
  function reset() { zoomTo(T0, T1); }
  function home() { zoomTo(H0, H1); }

  function plotX(ev) {
    var r = over.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }
  function inPlot(p) { return p.x >= M.l && p.x < M.l + PW && p.y >= M.t - 12 && p.y < M.t + PH; }

  function overlay(sel, hx) {
    var ctx = over.getContext('2d');
    ctx.clearRect(0, 0, W, H);
    if (sel) {
      ctx.fillStyle = 'rgba(40,110,220,0.18)';
      ctx.fillRect(Math.min(sel[0], sel[1]), M.t, Math.abs(sel[1] - sel[0]), PH);
    }
    if (hx !== undefined) {
      ctx.strokeStyle = 'rgba(0,0,0,0.5)';
      ctx.beginPath(); ctx.moveTo(Math.floor(hx) + 0.5, M.t); ctx.lineTo(Math.floor(hx) + 0.5, M.t + PH); ctx.stroke();
    }
  }

  /* ---------------------------------------------------------------- hover */
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  function hideTip() { tip.style.display = 'none'; overlay(null); }
  function showTip(p) {
    var i = Math.floor(p.x - M.l), c = cols[i];
    if (!c) { hideTip(); return; }
    overlay(null, p.x);
    var res = (view.b - view.a) / PW / 10;
    var h = '<b>' + esc(fmtTime(Math.max(T0, T(M.l + i)), res)) + ' \u2013 ' + esc(fmtTime(Math.min(T1, T(M.l + i + 1)), res)) + '</b><br>';
    h += 'highest total <b>' + esc(fmtBytes(c.max)) + '</b> at ' + esc(fmtTime(D.tmax[c.b], res)) + '<br>';
    if (c.min < c.max) h += 'lowest total ' + esc(fmtBytes(c.min)) + '<br>';
    if (c.nvml >= 0) h += esc(D.nvmlLabel) + ' ' + esc(fmtBytes(c.nvml)) + '<br>';
    var rows = [];
    for (var s = 0; s < D.series.length; s++) if (D.v[s][c.b] > 0 && !hidden[s]) rows.push(s);
    rows.sort(function (x, y) { return D.v[y][c.b] - D.v[x][c.b]; });
    if (rows.length) {
      h += 'at that moment:<table>';
      rows.slice(0, 14).forEach(function (s) {
        h += '<tr><td><span class="vt-sw" style="background:' + D.series[s].color + '"></span>' + esc(D.series[s].name) +
          '</td><td class="vt-num">' + esc(fmtBytes(D.v[s][c.b])) + '</td></tr>';
      });
      if (rows.length > 14) h += '<tr><td>' + (rows.length - 14) + ' more</td><td></td></tr>';
      h += '</table>';
    }
    D.ooms.forEach(function (o) {
      if (o.t >= T(M.l + i - 3) && o.t < T(M.l + i + 4))
        h += '<div style="color:#c00">OOM at ' + esc(fmtTime(o.t)) + ': asked ' + esc(fmtBytes(o.size)) + ' (' + esc(o.site) + ')</div>';
    });
    tip.innerHTML = h;
    tip.style.display = 'block';
    var left = p.x + 16;
    if (left + tip.offsetWidth > W) left = Math.max(0, p.x - 16 - tip.offsetWidth);
    tip.style.left = left + 'px';
    tip.style.top = Math.max(0, Math.min(H - tip.offsetHeight, p.y - 20)) + 'px';
  }


  /* ---------------------------------------------------------------- top sites at a moment */
  /* The sampled moments: each bucket's highest and lowest, in time order (S.bmax, S.bmin
   * name their states; moments of one state and time are one). */
  var moments = [];
  if (S) {
    for (var mb = 0; mb < NB; mb++) {
      moments.push({ t: D.tmax[mb], st: S.bmax[mb], what: 'highest' });
      moments.push({ t: D.tmin[mb], st: S.bmin[mb], what: 'lowest' });
    }
    moments.sort(function (p, q) { return p.t - q.t || p.st - q.st; });
    moments = moments.filter(function (m, i) { return !i || m.t !== moments[i - 1].t || m.st !== moments[i - 1].st; });
  }
  /* Clicking column x shows its highest moment (the one its bands draw); the panel
   * offers its lowest one and the sampled moments before and after. */
  function pick(x) {
    var c = cols[Math.floor(x - M.l)];
    if (!S || !c) return;
    var lo = c.b0;
    for (var b = c.b0; b <= c.b1; b++) if (D.min[b] < D.min[lo]) lo = b;
    showMoment({ t: D.tmax[c.b], st: S.bmax[c.b], what: 'highest' }, { t: D.tmin[lo], st: S.bmin[lo], what: 'lowest' });
  }
  function momentIndex(m) {
    for (var i = 0; i < moments.length; i++) if (moments[i].t === m.t && moments[i].st === m.st) return i;
    return -1;
  }
  function showMoment(m, low) {
    sel = m;
    draw();
    var P = $('vt-stacks'), st = m.st, tot = S.total[st];
    var h = '<div class="vt-stacks-head"><b>Top sites live at ' + esc(fmtTime(m.t, 1)) + ': ' + esc(fmtBytes(tot)) +
      '</b> <span class="vt-num">(' + tot + ' bytes)</span> ';
    h += '<button type="button" id="vt-prev" title="the sampled moment before">\u25c0 earlier</button> ' +
      '<button type="button" id="vt-next" title="the sampled moment after">later \u25b6</button>';
    if (low && (low.st !== st || low.t !== m.t))
      h += ' <button type="button" id="vt-low">lowest in that column: ' + esc(fmtBytes(S.total[low.st])) + ' at ' +
        esc(fmtTime(low.t, 1)) + '</button>';
    h += '</div><div class="vt-note">The ' + esc(m.what) + ' moment of ' +
      (m.all ? 'the range (click the chart for another)' : low ? 'the pixel column clicked' : 'its bucket') + '. Sampled moments are each bucket\u2019s highest and lowest ' +
      '(one bucket = ' + esc(fmtTime(SPAN / NB)) + '); the rows are the sites as <code>vramtrace top --at ' +
      m.t + 'ns</code> lists them, the largest ' + S.top + '.</div>';
    h += '<table class="vt-stacks-table"><tr><th>bytes</th><th>%</th><th>live</th><th>category</th><th>layer</th><th>site</th></tr>';
    for (var i = S.first[st]; i < S.first[st + 1]; i++) {
      var r = S.r[i] * 4, site = S.sites[S.rows[r]], b = S.rows[r + 2];
      h += '<tr class="vt-stack-row" data-bytes="' + b + '" data-count="' + S.rows[r + 3] + '"><td class="vt-num">' +
        esc(fmtBytes(b)) + '</td><td class="vt-num">' + (tot ? (100 * b / tot).toFixed(1) : '0.0') + '%</td><td class="vt-num">' +
        S.rows[r + 3] + '</td><td>' + esc(S.cats[S.rows[r + 1]]) + '</td><td>' + esc(site[2]) +
        '</td><td class="vt-site" title="' + esc(site[1]) + '">' + esc(site[0]) + '</td></tr>';
    }
    if (S.restSites[st])
      h += '<tr><td class="vt-num">' + esc(fmtBytes(S.restBytes[st])) + '</td><td class="vt-num">' +
        (tot ? (100 * S.restBytes[st] / tot).toFixed(1) : '0.0') + '%</td><td></td><td></td><td></td><td>' +
        S.restSites[st] + ' more sites</td></tr>';
    if (S.first[st] === S.first[st + 1]) h += '<tr><td colspan="6">no device memory was live then</td></tr>';
    P.innerHTML = h + '</table>';
    P.setAttribute('data-t', String(m.t));
    P.setAttribute('data-total', String(tot));
    var k = momentIndex(m);
    $('vt-prev').disabled = k <= 0;
    $('vt-next').disabled = k < 0 || k >= moments.length - 1;
    $('vt-prev').addEventListener('click', function () { if (k > 0) showMoment(moments[k - 1]); });
    $('vt-next').addEventListener('click', function () { if (k >= 0 && k < moments.length - 1) showMoment(moments[k + 1]); });
    if ($('vt-low')) $('vt-low').addEventListener('click', function () { showMoment(low); });
  }
  /* what the panel lists, for the self test */
  function panelSeen() {
    var P = $('vt-stacks');
    if (!P.hasAttribute('data-t')) return null;
    var rows = [].map.call(P.querySelectorAll('tr.vt-stack-row'), function (tr) {
      var td = tr.querySelectorAll('td');
      return { bytes: +tr.getAttribute('data-bytes'), count: +tr.getAttribute('data-count'), size: td[0].textContent,
               category: td[3].textContent, layer: td[4].textContent, site: td[5].textContent };
    });
    return { t: +P.getAttribute('data-t'), total: +P.getAttribute('data-total'), rows: rows };
  }
  /* It opens on the highest moment of all, so the first screen names what filled the peak. */
  function showHighest() {
    if (!S || !NB) return;
    var best = 0;
    for (var b = 1; b < NB; b++) if (D.max[b] > D.max[best]) best = b;
    showMoment({ t: D.tmax[best], st: S.bmax[best], what: 'highest', all: true });
  }

  /* ---------------------------------------------------------------- events */
  over.addEventListener('mousedown', function (ev) {
    var p = plotX(ev);
    if (!inPlot(p) || ev.button !== 0) return;
    drag = { x0: p.x, x1: p.x };
    ev.preventDefault();
  });
  window.addEventListener('mousemove', function (ev) {
    var p = plotX(ev);
    if (drag) {
      drag.x1 = Math.max(M.l, Math.min(M.l + PW, p.x));
      hideTip();
      overlay([drag.x0, drag.x1]);
      return;
    }
    if (ev.target === over && inPlot(p)) showTip(p); else if (tip.style.display !== 'none') hideTip();
  });
  window.addEventListener('mouseup', function () {
    if (!drag) return;
    var d = drag;
    drag = null;
    overlay(null);
    if (Math.abs(d.x1 - d.x0) > 3) zoomTo(T(Math.min(d.x0, d.x1)), T(Math.max(d.x0, d.x1)));
    else pick(d.x0);
  });
  over.addEventListener('wheel', function (ev) {
    var p = plotX(ev);
    if (!inPlot(p)) return;
    ev.preventDefault();
    var f = ev.deltaY > 0 ? 1.25 : 0.8, t = T(p.x);
    zoomTo(t - (t - view.a) * f, t + (view.b - t) * f);
  }, { passive: false });
  over.addEventListener('dblclick', reset);
  over.addEventListener('mouseleave', function () { if (!drag) hideTip(); });
  $('vt-reset').addEventListener('click', reset);
  $('vt-home').addEventListener('click', home);
  window.addEventListener('resize', function () { setup(); draw(); });

  /* ---------------------------------------------------------------- legend */
  function legend() {
    var L = $('vt-legend');
    D.series.forEach(function (s, i) {
      var e = document.createElement('span');
      e.className = 'vt-legend-item';
      e.title = s.detail + '\n(click to hide or show)';
      var pct = D.peak ? ' (' + (100 * s.peak / D.peak).toFixed(1) + '%)' : '';
      e.innerHTML = '<span class="vt-sw" style="background:' + s.color + '"></span>' + esc(s.name) +
        '<span class="vt-num">' + esc(fmtBytes(s.peak)) + pct + ' at the peak</span>';
      e.addEventListener('click', function () {
        hidden[i] = !hidden[i];
        e.classList.toggle('vt-off', hidden[i]);
        draw();
      });
      L.appendChild(e);
    });
    if (D.nvml) {
      var n = document.createElement('span');
      n.className = 'vt-legend-key';
      n.innerHTML = '<span class="vt-line" style="border-top-style:dashed"></span>' + esc(D.nvmlLabel);
      L.appendChild(n);
    }
  }

  /* ---------------------------------------------------------------- self test */
  /* ?selftest=1: exercises the chart as a user would and writes what it saw into
   * #vt-selftest (tests/html/browser.py reads it through --dump-dom). */
  function selftest() {
    var r = { errors: (window.vtErrors || []).slice() };
    var img = main.getContext('2d').getImageData(0, 0, main.width, main.height).data, colors = {}, painted = 0;
    for (var i = 0; i < img.length; i += 4) {
      var k = (img[i] << 16) | (img[i + 1] << 8) | img[i + 2];
      if (k !== 0xffffff) painted++;
      colors[k] = 1;
    }
    r.painted = painted;
    r.colors = Object.keys(colors).length;
    r.legend = document.querySelectorAll('.vt-legend-item').length;
    r.series = D.series.length;
    r.range0 = rangeLabel.textContent;
    r.home = view.a >= H0 - 2 * SPAN / NB && view.b <= H1 + 2 * SPAN / NB;
    reset();
    r.whole = view.a === T0 && view.b === T1;
    var span0 = view.b - view.a;
    zoomTo(T0 + SPAN / 4, T0 + SPAN / 2);
    r.zoomed = view.b - view.a < span0;
    r.range1 = rangeLabel.textContent;
    var rect = over.getBoundingClientRect(), cx = rect.left + M.l + PW / 2, cy = rect.top + M.t + PH / 2;
    var span1 = view.b - view.a;
    over.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: cx, clientY: cy, bubbles: true, cancelable: true }));
    r.wheel = view.b - view.a < span1;
    reset();
    over.dispatchEvent(new MouseEvent('mousedown', { button: 0, clientX: cx - 100, clientY: cy, bubbles: true }));
    window.dispatchEvent(new MouseEvent('mousemove', { clientX: cx + 50, clientY: cy, bubbles: true }));
    window.dispatchEvent(new MouseEvent('mouseup', { clientX: cx + 50, clientY: cy, bubbles: true }));
    r.drag = Math.abs((view.b - view.a) - SPAN * 150 / PW) <= SPAN * 2 / PW + 2 * SPAN / NB;
    reset();
    $('vt-home').click();
    r.range2 = rangeLabel.textContent;
    over.dispatchEvent(new MouseEvent('mousemove', { clientX: cx, clientY: cy, bubbles: true }));
    r.tooltip = tip.style.display === 'block' && tip.textContent.indexOf('highest total') >= 0;
    hideTip();
    /* the top sites: at load (the highest moment), then a click on the peak's column, one
     * at a third of the chart, and "later" */
    if (S) {
      r.stacks = { open: panelSeen() };
      var click = function (x) {
        var ev = { button: 0, clientX: rect.left + x, clientY: cy, bubbles: true };
        over.dispatchEvent(new MouseEvent('mousedown', ev));
        window.dispatchEvent(new MouseEvent('mouseup', ev));
        return panelSeen();
      };
      r.stacks.peak = click(X(D.peakT) + 0.5);
      r.stacks.third = click(M.l + PW / 3);
      var t3 = r.stacks.third ? r.stacks.third.t : -1;
      $('vt-next').click();
      r.stacks.next = panelSeen();
      r.stacks.later = !!r.stacks.next && r.stacks.next.t > t3;
      r.stacks.marked = !!sel && sel.t === (r.stacks.next || {}).t;
    }
    r.errors = (window.vtErrors || []).slice();
    r.ok = r.painted > 1000 && r.colors >= 3 && r.legend === r.series && r.zoomed && r.wheel && r.drag &&
      r.home && r.whole &&
      r.range1 !== r.range0 && r.range2 === r.range0 && r.tooltip && r.errors.length === 0 &&
      (!S || (!!r.stacks.peak && r.stacks.peak.total === D.peak && r.stacks.later && r.stacks.marked));
    var out = document.createElement('pre');
    out.id = 'vt-selftest';
    out.textContent = JSON.stringify(r);
    document.body.appendChild(out);
  }

  setup();
  legend();
  home();
  showHighest();
  if (/[?&]selftest=1/.test(location.search)) selftest();
})();
