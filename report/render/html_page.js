/* The HTML report's charts, drawn as SVG from the JSON report embedded in the page (the same
 * model the tables come from), and the sorting of its tables. No library, no network. */
(function () {
  'use strict';
  var SVGNS = 'http://www.w3.org/2000/svg';
  var D = JSON.parse(document.getElementById('tprof-data').textContent);
  var W = 960;

  function svg(tag, attrs, parent, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function tip(e, text) { svg('title', {}, e, text); }
  function root(id, h) {
    var box = document.getElementById(id);
    return box ? svg('svg', {width: W, height: h, viewBox: '0 0 ' + W + ' ' + h}, box) : null;
  }
  function say(id, text) {
    var box = document.getElementById(id);
    if (box) { var p = document.createElement('p'); p.className = 'none'; p.textContent = text; box.appendChild(p); }
  }
  function three(v, units, base) {
    var i = 0;
    while (v >= base * 0.9995 && i < units.length - 1) { v /= base; i++; }
    var s = v >= 99.95 || i === 0 ? v.toFixed(0) : v >= 9.995 ? v.toFixed(1) : v.toFixed(2);
    return s + ' ' + units[i];
  }
  function fns(v) { return three(v, ['ns', 'us', 'ms', 's'], 1000); }
  function fbytes(v) { return three(v, ['B', 'KiB', 'MiB', 'GiB', 'TiB'], 1024); }
  function frame(f) {
    var base = function (p) { return p ? p.replace(/.*\//, '') : '?'; };
    if (f.function && f.file) return f.function + ' (' + base(f.file) + ':' + f.line + ')';
    if (f.function) return f.function;
    return base(f.module) + '+0x' + (f.offset || 0).toString(16);
  }
  var PALETTE = ['#e4572e', '#f3a712', '#29335c', '#669bbc', '#a8c686', '#db7f67', '#8e6c88',
                 '#5c946e', '#c9a227', '#3d5a80'];
  function colour(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return PALETTE[h % PALETTE.length];
  }

  /* ---- sortable tables: click a header; numbers sort by their data-v ---- */
  function sortable(table) {
    var heads = table.querySelectorAll('th');
    heads.forEach(function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var down = th.getAttribute('data-dir') !== 'down';
        heads.forEach(function (h) { h.removeAttribute('data-dir'); });
        th.setAttribute('data-dir', down ? 'down' : 'up');
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var vx = x.getAttribute('data-v'), vy = y.getAttribute('data-v'), c;
          if (vx !== null && vy !== null) c = parseFloat(vx) - parseFloat(vy);
          else c = x.textContent.localeCompare(y.textContent);
          return down ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  document.querySelectorAll('table.sortable').forEach(sortable);

  /* ---- icicle: the root on top, each child under its parent, widths by value ---- */
  function tree(paths) { /* paths: [{names: [outer..inner], value, extra}] */
    var top = {name: 'all', value: 0, self: 0, kids: {}};
    paths.forEach(function (p) {
      var n = top;
      top.value += p.value;
      p.names.forEach(function (name) {
        if (!n.kids[name]) n.kids[name] = {name: name, value: 0, self: 0, kids: {}};
        n = n.kids[name];
        n.value += p.value;
      });
      n.self += p.value;
    });
    return top;
  }
  function icicle(id, top, label) {
    var depth = function (n) {
      var d = 0;
      for (var k in n.kids) d = Math.max(d, depth(n.kids[k]));
      return d + 1;
    };
    var rowh = 18, rows = Math.min(depth(top), 24), g = root(id, rows * rowh + 2);
    if (!g || !top.value) return;
    var draw = function (n, x, w, level) {
      if (level >= rows) return;
      var r = svg('g', {'class': 'cell'}, g);
      svg('rect', {x: x, y: level * rowh, width: Math.max(w - 0.5, 0.5), height: rowh - 1,
                   fill: level ? colour(n.name) : '#999'}, r);
      tip(r, label(n, top));
      if (w > 40) {
        var chars = Math.floor((w - 6) / 6.6);
        var t = n.name.length > chars ? n.name.slice(0, Math.max(chars - 1, 1)) + '\u2026' : n.name;
        svg('text', {x: x + 3, y: level * rowh + 13}, r, t);
      }
      var kids = Object.keys(n.kids).map(function (k) { return n.kids[k]; });
      kids.sort(function (a, b) { return b.value - a.value; });
      var cx = x;
      kids.forEach(function (k) {
        var kw = w * k.value / n.value;
        draw(k, cx, kw, level + 1);
        cx += kw;
      });
    };
    draw(top, 0, W, 0);
  }

  function opFlame() {
    var st = D.op_stacks || [];
    if (!st.length) { say('flame-time', 'No op stacks in this report (the run set neither TPROF_HTML nor TPROF_FOLDED).'); return; }
    var t = tree(st.map(function (s) { return {names: s.ops, value: s.self_ns}; }));
    var totals = {};
    st.forEach(function (s) { totals[s.ops.join(';')] = s.total_ns; });
    icicle('flame-time', t, function (n, top) {
      return n.name + '\ntotal ' + fns(n.value) + ' (' + (100 * n.value / top.value).toFixed(1) +
        '% of the time in ops)\nself ' + fns(n.self);
    });
  }

  function heapFlame() {
    var m = D.memory, paths = [], held = 0;
    m.sites.forEach(function (s) {
      if (!s.live_at_peak_bytes) return;
      held += s.live_at_peak_bytes;
      /* from main down, as the text report shows them: the frames above it (_start, libc's
       * start-up) are the same for every site and would only push the figures down */
      var fr = s.frames.slice().reverse(), m0 = 0;
      fr.forEach(function (f, i) { if (f.function === 'main' && !m0) m0 = i; });
      paths.push({names: fr.slice(m0).map(frame), value: s.live_at_peak_bytes});
    });
    if (m.peak_bytes > held) paths.push({names: ['(sites not in the report)'], value: m.peak_bytes - held});
    if (!paths.length) { say('flame-heap', 'No heap at the peak.'); return; }
    icicle('flame-heap', tree(paths), function (n, top) {
      return n.name + '\n' + fbytes(n.value) + ' live at the peak (' +
        (100 * n.value / top.value).toFixed(1) + '%)';
    });
  }

  /* ---- axes shared by the time charts ---- */
  function frameXY(g, h, xmax, ymax, xfmt, yfmt, xlabel) {
    var L = 70, R = 10, T = 10, B = 30;
    var X = function (v) { return L + (W - L - R) * (xmax ? v / xmax : 0); };
    var Y = function (v) { return T + (h - T - B) * (1 - (ymax ? v / ymax : 0)); };
    svg('line', {x1: L, y1: h - B, x2: W - R, y2: h - B, 'class': 'axis'}, g);
    svg('line', {x1: L, y1: T, x2: L, y2: h - B, 'class': 'axis'}, g);
    for (var i = 0; i <= 4; i++) {
      svg('text', {x: L - 4, y: Y(ymax * i / 4) + 4, 'text-anchor': 'end'}, g, yfmt(ymax * i / 4));
      svg('text', {x: X(xmax * i / 4), y: h - B + 16, 'text-anchor': i === 4 ? 'end' : 'middle'}, g, xfmt(xmax * i / 4));
    }
    svg('text', {x: (L + W - R) / 2, y: h - 2, 'text-anchor': 'middle'}, g, xlabel);
    return {X: X, Y: Y};
  }

  function heapTime() {
    var m = D.memory, s = m.series || [];
    if (!s.length) { say('heap-time', 'No heap series in this report (heap accounting was off, or an older tprof wrote it).'); return; }
    var h = 240, g = root('heap-time', h), end = Math.max(D.program.wall_ns, s[s.length - 1].ns);
    var a = frameXY(g, h, end, m.peak_bytes || 1, fns, fbytes, 'time since start');
    /* in steps: the points are taken at events (op calls, steps, samples), and between two of
     * them the heap is only known to have been at the first one's figure */
    var line = function (key) {
      var d = 'M' + a.X(s[0].ns) + ',' + a.Y(0);
      s.forEach(function (p, i) {
        if (i) d += 'L' + a.X(p.ns) + ',' + a.Y(s[i - 1][key]);
        d += 'L' + a.X(p.ns) + ',' + a.Y(p[key]);
      });
      return d + 'L' + a.X(s[s.length - 1].ns) + ',' + a.Y(0) + 'Z';
    };
    tip(svg('path', {d: line('live_bytes'), 'class': 'transient'}, g), 'transient: freed within its ' + (m.lifetime_unit === 'op_call' ? 'op call' : 'step'));
    if (m.lifetime_unit) tip(svg('path', {d: line('persistent_bytes'), 'class': 'persistent'}, g), 'persistent: outlives its step');
    var px = a.X(m.peak_ns), py = a.Y(m.peak_bytes);
    svg('line', {x1: px, y1: py, x2: px, y2: a.Y(0), 'class': 'peak'}, g);
    svg('circle', {cx: px, cy: py, r: 4, 'class': 'peakdot'}, g);
    var label = 'peak ' + fbytes(m.peak_bytes) + ' at ' + fns(m.peak_ns) + (m.peak_op ? ' in ' + m.peak_op : '');
    svg('text', {x: Math.min(px + 6, W - 300), y: py + 14, 'class': 'peaklabel', id: 'heap-peak-label'}, g, label);
    /* every point answers a hover with its time, bytes and op (the op whose outermost call began
     * or ended there, or the one running at the peak or at a CPU sample) */
    s.forEach(function (p) {
      tip(svg('circle', {cx: a.X(p.ns), cy: a.Y(p.live_bytes), r: 3, 'class': 'heapdot'}, g),
          fns(p.ns) + ': ' + fbytes(p.live_bytes) + ' live' +
          (m.lifetime_unit ? ', ' + fbytes(p.persistent_bytes) + ' persistent' : '') +
          (p.op ? ', op ' + p.op : ', no op'));
    });
  }

  /* ---- RSS over time, by part: the ledger's readings of /proc/self/smaps (memory.ledger_series),
   * the parts stacked in the order of the ledger, the heap at the bottom ---- */
  var PARTS = [
    ['heap', '#3d5a80', 'the heap blocks in use'],
    ['allocator', '#98c1d9', "the allocator's memory besides the blocks in use: freed memory it keeps, and its overhead"],
    ['file', '#e4572e', "mapped files that are not code: the program's own mmap calls and the others (glibc's locale archive)"],
    ['anonymous', '#f3a712', 'anonymous memory the program mapped itself'],
    ['stacks', '#8e6c88', "the threads' stacks"],
    ['libraries', '#a8c686', 'the code and data of the executable and its libraries'],
    ['tprof', '#999999', "tprof's own memory"],
    ['other', '#c9a227', "the kernel's areas"]];
  function rssTime() {
    var m = D.memory, s = m.ledger_series || [];
    if (!s.length) { say('rss-time', 'No RSS by part in this report (it has no memory ledger: /proc/self/smaps could not be read, or the report was merged or written by an older tprof).'); return; }
    var h = 240, g = root('rss-time', h), end = Math.max(D.program.wall_ns, s[s.length - 1].ns), top = 0;
    s.forEach(function (p) { top = Math.max(top, p.rss_bytes); });
    top = Math.max(top, m.ledger_rss_bytes || 0);
    var a = frameXY(g, h, end, top || 1, fns, fbytes, 'time since start');
    var under = s.map(function () { return 0; }), key = document.createElement('p');
    key.className = 'key';
    /* straight lines between readings: RSS moves between them too (unlike the heap chart's
     * steps), and a reading says nothing of when */
    PARTS.forEach(function (k) {
      var f = k[0] + '_bytes', most = 0, at = 0;
      s.forEach(function (p) { if ((p[f] || 0) > most) { most = p[f]; at = p.ns; } });
      if (!most) return; /* a part never resident: no band, no legend */
      var up = '', down = '';
      s.forEach(function (p, i) {
        up += (i ? 'L' : 'M') + a.X(p.ns) + ',' + a.Y(under[i] + (p[f] || 0));
        down = 'L' + a.X(p.ns) + ',' + a.Y(under[i]) + down;
      });
      s.forEach(function (p, i) { under[i] += p[f] || 0; });
      tip(svg('path', {d: up + down + 'Z', fill: k[1], 'class': 'band', 'data-kind': k[0]}, g),
          k[0] + ': ' + k[2] + '; at most ' + fbytes(most) + ', at ' + fns(at));
      var sw = document.createElement('span');
      sw.style.background = k[1];
      key.appendChild(sw);
      key.appendChild(document.createTextNode(k[0]));
    });
    var px = a.X(m.peak_rss_ns), py = a.Y(m.ledger_rss_bytes);
    svg('line', {x1: px, y1: py, x2: px, y2: a.Y(0), 'class': 'peak'}, g);
    svg('circle', {cx: px, cy: py, r: 4, 'class': 'peakdot'}, g);
    svg('text', {x: Math.min(px + 6, W - 300), y: py + 14, 'class': 'peaklabel', id: 'rss-peak-label'}, g,
        'highest reading ' + fbytes(m.ledger_rss_bytes) + ' at ' + fns(m.peak_rss_ns));
    /* every reading answers a hover with its time, its RSS and its parts */
    s.forEach(function (p) {
      var parts = PARTS.filter(function (k) { return p[k[0] + '_bytes']; }).map(function (k) {
        return k[0] + ' ' + fbytes(p[k[0] + '_bytes']);
      });
      tip(svg('circle', {cx: a.X(p.ns), cy: a.Y(p.rss_bytes), r: 3, 'class': 'rssdot'}, g),
          fns(p.ns) + ': RSS ' + fbytes(p.rss_bytes) + (parts.length ? ' (' + parts.join(', ') + ')' : ''));
    });
    document.getElementById('rss-time').appendChild(key);
  }

  function stepTime() {
    var st = D.steps, s = st.series || [];
    if (!s.length && st.count) { say('step-time', 'The steps are summed above: a merged report keeps no step-by-step series.'); return; }
    if (!s.length) { say('step-time', 'No steps in this report (name the step function with TPROF_STEP or call tprof_step()).'); return; }
    var h = 220, g = root('step-time', h), ymax = 0, nmax = 0;
    s.forEach(function (p) { ymax = Math.max(ymax, p.ns); nmax = Math.max(nmax, p.index + 1); });
    var a = frameXY(g, h, nmax, ymax, function (v) { return Math.round(v).toString(); }, fns, 'step');
    if (st.warmup) {
      var wx = a.X(st.warmup);
      tip(svg('rect', {x: a.X(0), y: a.Y(ymax), width: Math.max(wx - a.X(0), 1), height: a.Y(0) - a.Y(ymax), 'class': 'warm'}, g),
          st.warmup + ' warm-up step(s), left out of the latency');
      svg('text', {x: a.X(0) + 4, y: a.Y(ymax) + 12, 'class': 'warmlabel'}, g, 'warm-up');
    }
    var d = '';
    s.forEach(function (p, i) { d += (i ? 'L' : 'M') + a.X(p.index + 0.5) + ',' + a.Y(p.ns); });
    svg('path', {d: d, 'class': 'stepline'}, g);
    s.forEach(function (p) {
      tip(svg('circle', {cx: a.X(p.index + 0.5), cy: a.Y(p.ns), r: 2,
                         'class': p.index < st.warmup ? 'stepwarm' : 'stepdot'}, g),
          'step ' + p.index + ': ' + fns(p.ns));
    });
    if (st.latency_ns && st.latency_ns.n) {
      var y = a.Y(st.latency_ns.p50);
      svg('line', {x1: a.X(0), y1: y, x2: a.X(nmax), y2: y, 'class': 'median'}, g);
      svg('text', {x: a.X(nmax) - 4, y: y - 4, 'text-anchor': 'end'}, g, 'median ' + fns(st.latency_ns.p50));
    }
  }

  /* ---- latency of the top ops: min, p50, p95, p99, max on a log scale ---- */
  function latency() {
    var ops = D.ops.filter(function (o) { return o.latency_ns && o.latency_ns.n; });
    ops.sort(function (a, b) { return b.self_ns - a.self_ns; });
    ops = ops.slice(0, 10);
    if (!ops.length) { say('latency', 'No op latencies in this report.'); return; }
    var lo = Infinity, hi = 0;
    ops.forEach(function (o) { lo = Math.min(lo, Math.max(o.latency_ns.min, 1)); hi = Math.max(hi, o.latency_ns.max); });
    var l0 = Math.floor(Math.log10(lo)), l1 = Math.ceil(Math.log10(Math.max(hi, lo * 10)));
    var L = 200, R = 20, rowh = 22, h = ops.length * rowh + 40, g = root('latency', h);
    var X = function (v) { return L + (W - L - R) * (Math.log10(Math.max(v, 1)) - l0) / (l1 - l0); };
    for (var e = l0; e <= l1; e++) {
      svg('line', {x1: X(Math.pow(10, e)), y1: 0, x2: X(Math.pow(10, e)), y2: h - 24, 'class': 'grid'}, g);
      svg('text', {x: X(Math.pow(10, e)), y: h - 8, 'text-anchor': 'middle'}, g, fns(Math.pow(10, e)));
    }
    ops.forEach(function (o, i) {
      var q = o.latency_ns, y = i * rowh + 4, r = svg('g', {}, g);
      svg('text', {x: L - 6, y: y + 13, 'text-anchor': 'end'}, r, o.name);
      svg('line', {x1: X(q.min), y1: y + 9, x2: X(q.max), y2: y + 9, 'class': 'whisker'}, r);
      svg('rect', {x: X(q.p50), y: y + 2, width: Math.max(X(q.p95) - X(q.p50), 1), height: 14, fill: colour(o.name), 'class': 'box'}, r);
      svg('rect', {x: X(q.p95), y: y + 5, width: Math.max(X(q.p99) - X(q.p95), 1), height: 8, fill: colour(o.name), 'class': 'box99'}, r);
      svg('line', {x1: X(q.p50), y1: y, x2: X(q.p50), y2: y + 18, 'class': 'median'}, r);
      tip(r, o.name + ' (' + q.n + ' calls after warm-up)\nmin ' + fns(q.min) + '  p50 ' + fns(q.p50) +
        '  p95 ' + fns(q.p95) + '  p99 ' + fns(q.p99) + '  max ' + fns(q.max));
    });
  }

  /* A chart that fails leaves the others drawn, and says so on the console and in the page. */
  var failed = 0;
  var charts = [opFlame, heapFlame, heapTime, rssTime, stepTime, latency];
  charts.forEach(function (f) {
    try { f(); } catch (err) { failed++; console.error('tprof: ' + f.name + ': ' + err); }
  });
  document.body.setAttribute('data-drawn', String(charts.length - failed));
  document.body.setAttribute('data-failed', String(failed));
})();
