// fedsim live dashboard (issue 16 item 3). Vanilla ES2020, no dependencies, works offline.
// Reads the live stream (docs/stream.md) as server-sent events from /events: one stream line
// per `data:` message, replayed from the start for a late browser, then `event: done`.
// Several runs in one stream (a sweep) carry `run` and `point` fields.
//
// DOM contract (tests read these):
//   #title, #status (connecting | running | completed | incomplete), #reason
//   table#rounds  tbody tr[data-round]  cells in the order of thead th[data-col]
//   table#phases  tbody tr[data-phase]
//   table#runs    tbody tr[data-point]
//   table#faults  tbody tr[data-kind]   cells: kind, count
// Formats: integers as integers, t with toFixed(3), epsilon and regret with toPrecision(4),
// null (or missing) as "–".
'use strict';
(() => {
  const DASH = '\u2013';
  const $ = (id) => document.getElementById(id);

  // ---------- formatting ----------
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const fmtInt = (v) => (!isNum(v) ? DASH : Number.isInteger(v) ? String(v) : v.toPrecision(4));
  const fmtT = (v) => (!isNum(v) ? DASH : v.toFixed(3));
  const fmtP = (v) => (!isNum(v) ? DASH : v.toPrecision(4));
  const COL_FORMAT = { t: fmtT, epsilon: fmtP, regret: fmtP };
  const fmtCol = (col, v) => (typeof v === 'string' ? v : (COL_FORMAT[col] || fmtInt)(v));
  function fmtDuration(s) {
    if (!isNum(s)) return DASH;
    if (s < 60) return s < 10 ? s.toFixed(2) + ' s' : s.toFixed(1) + ' s';
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
    if (h > 0) return `${h} h ${String(m).padStart(2, '0')} m`;
    return `${m} m ${String(sec).padStart(2, '0')} s`;
  }
  function fmtNum(v) { // a short human number for tiles and ticks
    if (!isNum(v)) return DASH;
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a >= 1e6 || a < 1e-3) return v.toExponential(2).replace('e+', 'e');
    if (Number.isInteger(v)) return String(v);
    return String(Number(v.toPrecision(4)));
  }
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  // ---------- colours ----------
  const C = {
    regret: '#1f5fa8', wall: '#6b4fa0', eps: '#b23a2e', rdp: '#d9822b', pld: '#2e7d4f', budget: '#555',
    participants: '#1f5fa8', late: '#d9a21b', dropped: '#b23a2e', rejected: '#6b4fa0',
    alive: '#2e7d4f', survivors: '#1f5fa8',
  };
  const FAULT_COLORS = { drop: '#b23a2e', late: '#d9a21b', reject: '#6b4fa0', duplicate: '#1f5fa8', corrupt: '#8c564b',
    lost: '#3d3d3d', rejoin: '#2e7d4f', evaluation_failed: '#e377c2' };
  // grid points: a qualitative palette (Tableau 10, darkened a little for paper)
  const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
    '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#ad494a', '#637939', '#8c6d31', '#7b4173'];

  // agent states: conditions are bits, a clearing state clears its bit (recovered clears crashed,
  // revived clears presumed_dead, ...); the cell shows the most severe condition.
  const COND = { crashed: 1, lost: 2, offline: 4, partitioned: 8, presumed_dead: 16 };
  const CLEARS = { recovered: 'crashed', rejoined: 'lost', online: 'offline', healed: 'partitioned', revived: 'presumed_dead' };
  const SHOWN = [ // display state, colour; index = code
    ['alive', '#9fd3ae'], ['crashed', '#c0392b'], ['lost', '#3d3d3d'], ['offline', '#a7acb2'],
    ['partitioned', '#8e6bbf'], ['presumed_dead', '#e08a2e'],
  ];
  const STRAG = '#7a4b00';
  const codeOf = (mask) => (mask & 1 ? 1 : mask & 2 ? 2 : mask & 4 ? 3 : mask & 8 ? 4 : mask & 16 ? 5 : 0);

  // ---------- state ----------
  let S = null;
  function freshRun() {
    return {
      start: null, end: null, family: null,
      rounds: [], roundAt: new Map(), privacy: [], phases: [], phaseAt: new Map(),
      faults: new Map(), faultTotal: 0, faultTimes: new Map(),
      agentMask: new Uint8Array(0), agentStrag: new Uint8Array(0), agentsSeen: 0,
      totals: { late: 0, dropped: 0, rejected: 0, excluded: 0 },
      lastT: null, lastWall: null,
    };
  }
  function freshState() {
    return {
      mode: 'none', done: false, run: freshRun(),
      sweep: { runs: new Map(), points: new Map(), lastWall: null, lastRun: null, scenarios: new Set(), algorithms: new Set() },
      pendingRows: [], resetTables: true, dirty: true,
    };
  }

  function ensureAgents(run, n) {
    if (n <= run.agentMask.length) return;
    const m = new Uint8Array(n); m.set(run.agentMask); run.agentMask = m;
    const s = new Uint8Array(n); s.set(run.agentStrag); run.agentStrag = s;
  }

  // ---------- ingest ----------
  function ingest(d) {
    if (!d || typeof d !== 'object') return;
    if (typeof d.run === 'string') return ingestSweep(d);
    let run = S.run;
    if (d.type === 'start') {
      if (run.start) { // the same run again (a reconnect replays the stream): start over
        const done = S.done; S = freshState(); S.done = done; run = S.run;
      }
      run.start = d; run.family = d.family;
      S.mode = d.family === 'fed-pne' ? 'fed-pne' : 'fbo';
      ensureAgents(run, d.agents | 0);
    }
    ingestRunLine(run, d, true);
    S.dirty = true;
  }

  function ingestRunLine(run, d, single) {
    if (isNum(d.t)) run.lastT = d.t;
    if (isNum(d.wall)) run.lastWall = d.wall;
    switch (d.type) {
      case 'agent': {
        const a = d.agent | 0;
        if (a >= run.agentMask.length) ensureAgents(run, Math.max(a + 1, run.agentMask.length * 2));
        if (d.state === 'straggling') run.agentStrag[a] = 1;
        else if (COND[d.state]) run.agentMask[a] |= COND[d.state];
        else if (CLEARS[d.state]) run.agentMask[a] &= ~COND[CLEARS[d.state]];
        run.agentsSeen++;
        break;
      }
      case 'fault': {
        const n = (run.faults.get(d.kind) || 0) + 1;
        run.faults.set(d.kind, n);
        run.faultTotal++;
        if (single && isNum(d.t)) {
          let tl = run.faultTimes.get(d.kind);
          if (!tl) run.faultTimes.set(d.kind, (tl = []));
          const lastP = tl[tl.length - 1];
          if (lastP && lastP[0] === d.t) lastP[1] = n; else tl.push([d.t, n]);
        }
        break;
      }
      case 'round': {
        const prev = run.roundAt.get(d.round);
        if (prev !== undefined) { // a duplicate: replace
          const old = run.rounds[prev];
          run.totals.late -= old.late | 0; run.totals.dropped -= old.dropped | 0; run.totals.rejected -= old.rejected | 0;
          run.rounds[prev] = d;
        } else {
          run.roundAt.set(d.round, run.rounds.length);
          run.rounds.push(d);
        }
        run.totals.late += d.late | 0; run.totals.dropped += d.dropped | 0; run.totals.rejected += d.rejected | 0;
        if (single) S.pendingRows.push(d);
        break;
      }
      case 'privacy': run.privacy.push(d); break;
      case 'phase': {
        const prev = run.phaseAt.get(d.phase);
        if (prev !== undefined) {
          const old = run.phases[prev];
          run.totals.late -= old.late | 0; run.totals.rejected -= old.rejected | 0; run.totals.excluded -= old.excluded | 0;
          run.phases[prev] = d;
        } else {
          run.phaseAt.set(d.phase, run.phases.length);
          run.phases.push(d);
        }
        run.totals.late += d.late | 0; run.totals.rejected += d.rejected | 0; run.totals.excluded += d.excluded | 0;
        if (single) S.pendingRows.push(d);
        break;
      }
      case 'end': run.end = d; break;
      default: break;
    }
  }

  function ingestSweep(d) {
    if (S.mode !== 'sweep') { // the first line of a sweep: forget anything single-run
      const done = S.done; S = freshState(); S.done = done; S.mode = 'sweep';
    }
    const W = S.sweep;
    let r = W.runs.get(d.run);
    const point = typeof d.point === 'string' ? d.point : d.run;
    if (!r || d.type === 'start') {
      r = { name: d.run, point, data: freshRun(), light: true };
      W.runs.set(d.run, r); // a start line again (a reconnect) replaces the run's data
    }
    if (!W.points.has(point)) W.points.set(point, { name: point, color: PALETTE[W.points.size % PALETTE.length], row: null });
    if (d.type === 'start') {
      r.data.start = d; r.data.family = d.family;
      W.scenarios.add(d.scenario); W.algorithms.add(d.algorithm);
    }
    // a sweep keeps rounds, phases and the end line of each run; agents and faults are not shown
    if (d.type === 'round' || d.type === 'phase' || d.type === 'end' || d.type === 'privacy') ingestRunLine(r.data, d, false);
    else { if (isNum(d.wall)) r.data.lastWall = d.wall; if (isNum(d.t)) r.data.lastT = d.t; }
    W.lastRun = r;
    S.dirty = true;
  }

  // ---------- scheduling: one render per animation frame (or 100 ms when frames are throttled) ----------
  let scheduled = false;
  // An expensive page (100,000 agents, thousands of rounds) renders at most every 3 render costs.
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    let fired = false;
    const go = () => { if (fired) return; fired = true; scheduled = false; render(); };
    const wait = stats.lastRender == null ? 0 : stats.lastRender + 3 * stats.renderMs - performance.now();
    if (wait > 20) { setTimeout(() => { requestAnimationFrame(go); setTimeout(go, 100); }, wait); return; }
    requestAnimationFrame(go);
    setTimeout(go, 100);
  }

  // ---------- SVG charts ----------
  function niceStep(span, count) {
    const raw = span / Math.max(1, count);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  }
  function ticks(min, max, count, integer) {
    if (!(max > min)) { const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1; min -= pad; max += pad; }
    let step = niceStep(max - min, count);
    if (integer) step = Math.max(1, Math.round(step));
    const lo = Math.floor(min / step) * step, hi = Math.ceil(max / step) * step;
    const out = [];
    for (let v = lo; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return { lo, hi, step, ticks: out };
  }
  function tickLabel(v, step) {
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-4)) return v.toExponential(1).replace('e+', 'e');
    const dec = step >= 1 ? 0 : Math.min(8, Math.ceil(-Math.log10(step) - 1e-9));
    return v.toFixed(dec);
  }
  // keep the first and last points and, per bucket, the points with the smallest and largest y
  function downsample(pts, max) {
    if (pts.length <= max) return pts;
    const buckets = Math.floor(max / 2), n = pts.length, out = [pts[0]];
    for (let b = 0; b < buckets; b++) {
      const i0 = 1 + Math.floor((b * (n - 2)) / buckets), i1 = 1 + Math.floor(((b + 1) * (n - 2)) / buckets);
      if (i1 <= i0) continue;
      let lo = i0, hi = i0;
      for (let i = i0; i < i1; i++) { if (pts[i][1] < pts[lo][1]) lo = i; if (pts[i][1] > pts[hi][1]) hi = i; }
      if (lo < hi) { out.push(pts[lo]); if (hi !== lo) out.push(pts[hi]); } else { out.push(pts[hi]); if (hi !== lo) out.push(pts[lo]); }
    }
    out.push(pts[n - 1]);
    return out;
  }

  // per bucket of consecutive points, their mean (for noisy counts over thousands of rounds)
  function bucketMean(pts, max) {
    if (pts.length <= max) return pts;
    const out = [], size = pts.length / max;
    for (let b = 0; b < max; b++) {
      const i0 = Math.floor(b * size), i1 = Math.min(pts.length, Math.floor((b + 1) * size));
      if (i1 <= i0) continue;
      let sx = 0, sy = 0;
      for (let i = i0; i < i1; i++) { sx += pts[i][0]; sy += pts[i][1]; }
      out.push([sx / (i1 - i0), sy / (i1 - i0)]);
    }
    return out;
  }

  function legendSvg(items, x0, y0, width) {
    // items: {name, color, dash, kind: 'line'|'box'}; laid out in rows below the axes
    let x = x0, y = y0, s = '';
    for (const it of items) {
      const w = 26 + Math.min(260, it.name.length * 6.3) + 16;
      if (x > x0 && x + w > x0 + width) { x = x0; y += 16; }
      if (it.kind === 'box') s += `<rect x="${x}" y="${y - 8}" width="12" height="10" fill="${it.color}" rx="1.5"/>`;
      else s += `<line x1="${x}" x2="${x + 18}" y1="${y - 3}" y2="${y - 3}" stroke="${it.color}" stroke-width="2.2"${it.dash ? ` stroke-dasharray="${it.dash}"` : ''}/>`;
      s += `<text x="${x + (it.kind === 'box' ? 17 : 23)}" y="${y}">${esc(it.name)}</text>`;
      x += w;
    }
    return { svg: `<g class="legend">${s}</g>`, bottom: y + 6 };
  }
  function legendRows(items, width) {
    let x = 0, rows = items.length ? 1 : 0;
    for (const it of items) { const w = 26 + Math.min(260, it.name.length * 6.3) + 16; if (x > 0 && x + w > width) { x = 0; rows++; } x += w; }
    return rows;
  }

  // opts: {w, h, xLabel, yLabel, xInteger, series: [{name, color, pts, dash, step}], hlines: [{y, name, color, dash}],
  //        bars: {cats: [x...], series: [{name, color, values}]}, empty}
  function drawChart(svg, opts) {
    const W = Math.max(320, Math.round(widths.get(svg) || opts.w || 600));
    const baseH = opts.h || 300;
    const M = { l: 58, r: 14, t: 10, b: 42 };
    const legendItems = [];
    for (const s of opts.series || []) legendItems.push({ name: s.name, color: s.color, dash: s.dash, kind: 'line' });
    if (opts.bars) for (const s of opts.bars.series) legendItems.push({ name: s.name, color: s.color, kind: 'box' });
    for (const h of opts.hlines || []) legendItems.push({ name: h.name, color: h.color, dash: h.dash || '5 4', kind: 'line' });
    const rows = legendRows(legendItems, W - M.l - M.r);
    const H = baseH + Math.max(0, rows - 1) * 16;
    const pw = W - M.l - M.r, ph = baseH - M.t - M.b - (rows ? 16 : 0);
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);

    // ranges
    let xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;
    const series = (opts.series || []).map((s) => ({ ...s, pts: (s.mean ? bucketMean : downsample)(s.pts.filter((p) => isNum(p[0]) && isNum(p[1])), s.mean ? 200 : 900) }));
    for (const s of series) for (const [x, y] of s.pts) { if (x < xmin) xmin = x; if (x > xmax) xmax = x; if (y < ymin) ymin = y; if (y > ymax) ymax = y; }
    let cats = null;
    if (opts.bars && opts.bars.cats.length) {
      cats = opts.bars.cats;
      xmin = Math.min(xmin, cats[0] - 0.5); xmax = Math.max(xmax, cats[cats.length - 1] + 0.5);
      ymin = Math.min(ymin, 0);
      for (const s of opts.bars.series) for (const v of s.values) if (isNum(v) && v > ymax) ymax = v;
    }
    for (const h of opts.hlines || []) if (isNum(h.y)) { if (h.y > ymax) ymax = h.y; if (h.y < ymin) ymin = h.y; }
    const hasData = series.some((s) => s.pts.length) || (cats && cats.length);
    if (!hasData) {
      svg.innerHTML = `<rect x="${M.l}" y="${M.t}" width="${pw}" height="${ph}" fill="none" class="axis"/>` +
        `<text class="empty" x="${M.l + pw / 2}" y="${M.t + ph / 2}" text-anchor="middle">${esc(opts.empty || 'waiting for data')}</text>`;
      return;
    }
    if (opts.yFromZero && ymin > 0) ymin = 0;
    if (!isFinite(xmin)) { xmin = 0; xmax = 1; }
    const xt = ticks(xmin, xmax, 7, opts.xInteger);
    if (xmax > xmin) { xt.lo = xmin; xt.hi = xmax; xt.ticks = xt.ticks.filter((v) => v >= xmin - 1e-9 * (xmax - xmin) && v <= xmax + 1e-9 * (xmax - xmin)); }
    const yt = ticks(ymin, ymax, 5, opts.yInteger);
    const X = (x) => M.l + ((x - xt.lo) / (xt.hi - xt.lo || 1)) * pw;
    const Y = (y) => M.t + ph - ((y - yt.lo) / (yt.hi - yt.lo || 1)) * ph;
    const f = (v) => v.toFixed(1);
    let s = '';
    // grid and ticks
    for (const v of yt.ticks) s += `<line class="gridline" x1="${M.l}" x2="${M.l + pw}" y1="${f(Y(v))}" y2="${f(Y(v))}"/>` +
      `<text x="${M.l - 6}" y="${f(Y(v) + 3.5)}" text-anchor="end">${tickLabel(v, yt.step)}</text>`;
    const xtl = xt.ticks.length > 12 ? xt.ticks.filter((_, i) => i % Math.ceil(xt.ticks.length / 10) === 0) : xt.ticks;
    for (const v of xtl) s += `<line class="axis" x1="${f(X(v))}" x2="${f(X(v))}" y1="${M.t + ph}" y2="${M.t + ph + 4}"/>` +
      `<text x="${f(X(v))}" y="${M.t + ph + 16}" text-anchor="middle">${tickLabel(v, xt.step)}</text>`;
    // bars
    if (cats) {
      const bs = opts.bars.series, n = cats.length;
      const slot = pw / Math.max(1, (xt.hi - xt.lo)); // width of one unit of x
      const gw = Math.max(1, slot * 0.8), bw = gw / bs.length;
      bs.forEach((b, j) => {
        let path = '';
        for (let i = 0; i < n; i++) {
          const v = b.values[i]; if (!isNum(v) || v === 0) continue;
          const x0 = X(cats[i]) - gw / 2 + j * bw, y0 = Y(v), y1 = Y(Math.max(0, yt.lo));
          path += `M${f(x0)},${f(y1)}V${f(y0)}h${Math.max(0.6, bw - (bw > 3 ? 0.6 : 0)).toFixed(2)}V${f(y1)}Z`;
        }
        if (path) s += `<path d="${path}" fill="${b.color}" opacity="0.9"/>`;
      });
    }
    // horizontal lines (budget, N)
    for (const h of opts.hlines || []) if (isNum(h.y)) s += `<line x1="${M.l}" x2="${M.l + pw}" y1="${f(Y(h.y))}" y2="${f(Y(h.y))}" stroke="${h.color}" stroke-width="1.5" stroke-dasharray="${h.dash || '5 4'}"/>`;
    // series
    for (const se of series) {
      if (!se.pts.length) continue;
      let d = '';
      se.pts.forEach(([x, y], i) => {
        if (i === 0) d += `M${f(X(x))},${f(Y(y))}`;
        else if (se.step) d += `H${f(X(x))}V${f(Y(y))}`;
        else d += `L${f(X(x))},${f(Y(y))}`;
      });
      s += `<path class="series" d="${d}" stroke="${se.color}"${se.dash ? ` stroke-dasharray="${se.dash}"` : ''}/>`;
      if (se.pts.length <= 60 && !se.noDots) for (const [x, y] of se.pts) s += `<circle cx="${f(X(x))}" cy="${f(Y(y))}" r="2" fill="${se.color}"/>`;
      else { const [x, y] = se.pts[se.pts.length - 1]; s += `<circle cx="${f(X(x))}" cy="${f(Y(y))}" r="2.6" fill="${se.color}"/>`; }
    }
    // axes and labels
    s += `<line class="axis" x1="${M.l}" x2="${M.l + pw}" y1="${M.t + ph}" y2="${M.t + ph}"/>` +
      `<line class="axis" x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${M.t + ph}"/>`;
    s += `<text class="label" x="${M.l + pw / 2}" y="${M.t + ph + 32}" text-anchor="middle">${esc(opts.xLabel || '')}</text>`;
    s += `<text class="label" transform="translate(14,${M.t + ph / 2}) rotate(-90)" text-anchor="middle">${esc(opts.yLabel || '')}</text>`;
    if (legendItems.length) s += legendSvg(legendItems, M.l, M.t + ph + 50, pw).svg;
    svg.innerHTML = s;
  }

  // ---------- agent grid (canvas) ----------
  const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
  const SHOWN_RGB = SHOWN.map(([, c]) => hex(c));
  const STRAG_RGB = hex(STRAG);
  const mix = (a, b, t) => [0, 1, 2].map((i) => Math.round(a[i] * (1 - t) + b[i] * t));
  function drawAgents(run) {
    const cv = $('agents');
    const n = Math.max(run.start ? run.start.agents | 0 : 0, run.agentMask.length);
    const counts = new Array(SHOWN.length).fill(0);
    let strag = 0;
    const mask = run.agentMask, sg = run.agentStrag;
    const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    const cssW = Math.max(200, widths.get(cv.parentElement) || 560);
    const W = Math.floor(cssW * dpr);
    const maxH = 300 * dpr;
    let cell = n ? Math.floor(Math.sqrt((W * maxH) / n)) : 10;
    cell = Math.max(1, Math.min(Math.round(34 * dpr), cell));
    let cols = Math.max(1, Math.floor(W / cell));
    if (n && n < cols) cols = n;
    const rows = n ? Math.ceil(n / cols) : 1;
    const H = Math.max(cell, rows * cell);
    if (cv.width !== W || cv.height !== H) { cv.width = W; cv.height = H; }
    cv.style.height = (H / dpr) + 'px';
    cv.style.width = (W / dpr) + 'px';
    const ctx = cv.getContext('2d');
    const img = ctx.createImageData(W, H);
    const px = img.data;
    px.fill(0); // transparent: the canvas background shows
    const gap = cell >= 5 ? Math.max(1, Math.round(cell / 8)) : 0;
    const border = cell >= 7 ? Math.max(1, Math.round(cell / 7)) : 0;
    const inner = cell - gap;
    const light = SHOWN_RGB.map((c) => mix(c, STRAG_RGB, 0.45));
    for (let a = 0; a < n; a++) {
      const code = codeOf(mask[a] || 0);
      counts[code]++;
      const st = sg[a] === 1;
      if (st) strag++;
      const x0 = (a % cols) * cell, y0 = Math.floor(a / cols) * cell;
      const fill = st && !border ? light[code] : SHOWN_RGB[code];
      for (let y = 0; y < inner; y++) {
        let o = ((y0 + y) * W + x0) * 4;
        const edgeY = y < border || y >= inner - border;
        for (let x = 0; x < inner; x++, o += 4) {
          const c = st && border && (edgeY || x < border || x >= inner - border) ? STRAG_RGB : fill;
          px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
        }
      }
    }
    ctx.putImageData(img, 0, 0);
    const items = SHOWN.map(([name, color], i) => `<li class="${counts[i] ? '' : 'zero'}" data-state="${name}"><span class="sw" style="background:${color}"></span>${name.replace('_', ' ')} <b>${counts[i]}</b></li>`);
    items.push(`<li class="${strag ? '' : 'zero'}" data-state="straggling"><span class="sw strag"></span>straggling <b>${strag}</b></li>`);
    $('agent-legend').innerHTML = items.join('');
    $('agents-note').textContent = n ? `${n} ${run.family === 'fed-pne' ? 'clients' : 'agents'}, one cell each` + (border ? '; stragglers outlined' : '; stragglers shaded') : '';
  }

  // ---------- tables ----------
  const colsOf = (table) => Array.from(document.querySelectorAll(`table#${table} thead th[data-col]`), (th) => th.dataset.col);
  let ROUND_COLS, PHASE_COLS, RUN_COLS;
  function fillRow(tr, cols, d) {
    let tds = tr.children;
    if (tds.length !== cols.length) { tr.textContent = ''; for (let i = 0; i < cols.length; i++) tr.appendChild(document.createElement('td')); tds = tr.children; }
    cols.forEach((c, i) => { tds[i].textContent = fmtCol(c, d[c]); });
  }
  function flushRows() {
    if (S.resetTables) {
      for (const id of ['rounds', 'phases', 'runs', 'faults']) document.querySelector(`table#${id} tbody`).textContent = '';
      S.resetTables = false;
    }
    if (!S.pendingRows.length) return;
    const isPhase = S.mode === 'fed-pne';
    const table = isPhase ? 'phases' : 'rounds', key = isPhase ? 'phase' : 'round', cols = isPhase ? PHASE_COLS : ROUND_COLS;
    const tbody = document.querySelector(`table#${table} tbody`);
    const fresh = [];
    const seen = new Map();
    for (const d of S.pendingRows) seen.set(d[key], d); // the last line of a number wins
    for (const [k, d] of seen) {
      const old = tbody.querySelector(`tr[data-${key}="${k}"]`);
      if (old) fillRow(old, cols, d); else fresh.push(d);
    }
    fresh.sort((a, b) => b[key] - a[key]);
    const frag = document.createDocumentFragment();
    for (const d of fresh) { const tr = document.createElement('tr'); tr.dataset[key] = String(d[key]); fillRow(tr, cols, d); frag.appendChild(tr); }
    // rows arrive in order: the new ones go on top; otherwise insert in place
    const first = tbody.firstElementChild;
    if (!first || !fresh.length || fresh[fresh.length - 1][key] > Number(first.dataset[key])) tbody.insertBefore(frag, first);
    else {
      for (const tr of Array.from(frag.children)) {
        const k = Number(tr.dataset[key]);
        let at = tbody.firstElementChild;
        while (at && Number(at.dataset[key]) > k) at = at.nextElementSibling;
        tbody.insertBefore(tr, at);
      }
    }
    S.pendingRows = [];
  }
  function renderFaults(run) {
    const tbody = document.querySelector('table#faults tbody');
    const kinds = Array.from(run.faults.keys()).sort();
    for (const k of kinds) {
      let tr = tbody.querySelector(`tr[data-kind="${k}"]`);
      if (!tr) { tr = document.createElement('tr'); tr.dataset.kind = k; tr.innerHTML = '<td></td><td></td>'; tbody.appendChild(tr); }
      tr.children[0].textContent = k;
      tr.children[1].textContent = String(run.faults.get(k));
    }
    $('faults-empty').style.display = kinds.length ? 'none' : '';
  }

  // ---------- tiles ----------
  function tile(k, v, sub, frac, id) {
    const bar = isNum(frac) ? `<div class="bar"><i style="width:${(Math.max(0, Math.min(1, frac)) * 100).toFixed(1)}%"></i></div>` : '';
    const len = String(v).length, size = len > 14 ? ' xlong' : len > 9 ? ' long' : '';
    return `<div class="tile"${id ? ` id="tile-${id}"` : ''}><div class="k">${esc(k)}</div><div class="v${size}">${esc(v)}</div>` +
      (sub != null ? `<div class="s">${esc(sub)}</div>` : '') + bar + '</div>';
  }

  // ---------- render ----------
  function setStatus(st, reason) {
    const el = $('status');
    if (el.textContent !== st) { el.textContent = st; el.className = 'status ' + st; }
    $('reason').textContent = reason || '';
  }

  const widths = new Map();
  const stats = { lines: 0, renders: 0, renderMs: 0, firstLine: null, lastRender: null };
  function render() {
    if (!S.dirty) return;
    const t0 = performance.now();
    S.dirty = false;
    document.body.dataset.mode = S.mode;
    // read every width once, before writing anything (no layout per chart)
    widths.clear();
    for (const el of document.querySelectorAll('svg.chart, .agentbox')) widths.set(el, el.clientWidth);
    flushRows();
    if (S.mode === 'sweep') renderSweep();
    else if (S.mode === 'fbo' || S.mode === 'fed-pne') renderSingle();
    const t1 = performance.now();
    stats.renders++; stats.renderMs = t1 - t0; stats.lastRender = t1;
    // for tests and curious users: lines received, the last render's cost, time from the first line
    document.body.dataset.lines = String(stats.lines);
    document.body.dataset.renderMs = stats.renderMs.toFixed(1);
    if (stats.firstLine != null) document.body.dataset.sinceFirstLineMs = (t1 - stats.firstLine).toFixed(1);
  }

  function renderSingle() {
    const run = S.run, st = run.start, end = run.end;
    if (!st) return;
    const pne = run.family === 'fed-pne';
    $('title').textContent = [
      st.scenario, st.algorithm, `N = ${st.agents} ${pne ? 'clients' : 'agents'}`,
      pne ? `T = ${st.pulls_per_client} pulls per client` : `T = ${st.iterations} iterations`,
      `${st.clock} clock`, `seed ${st.seed}`,
    ].join(' · ');
    if (end) setStatus(end.completed ? 'completed' : 'incomplete', end.completed ? '' : (end.reason || 'not completed'));
    else if (S.done) setStatus('incomplete', 'the stream ended before the run did');
    else setStatus('running', '');
    document.title = `${end ? '' : '▶ '}fedsim · ${st.scenario} · ${st.algorithm}`;

    const T = run.lastT, wall = run.lastWall;
    const tiles = [];
    let left = null;
    if (!pne) {
      const last = run.rounds[run.rounds.length - 1];
      const closed = run.rounds.length, Tn = st.iterations;
      const progress = last && isNum(last.progress) ? last.progress : null;
      const iterations = progress != null && Tn ? Math.floor(progress * Tn + 1e-9) : 0;
      tiles.push(tile('iteration', `${iterations} / ${Tn}`, `${closed} rounds closed`, progress, 'round'));
      tiles.push(tile('regret so far', last ? fmtP(last.regret) : DASH, 'mean simple regret', null, 'regret'));
      if (st.private) {
        const pv = run.privacy[run.privacy.length - 1];
        const eps = pv ? pv.epsilon : last ? last.epsilon : null;
        const budget = pv && pv.budget !== undefined ? pv.budget : st.epsilon_budget;
        tiles.push(tile('ε spent', fmtP(eps), isNum(budget) ? `of budget ${fmtNum(budget)}` : 'no budget', isNum(budget) && isNum(eps) ? eps / budget : null, 'epsilon'));
      }
      const alive = last ? last.alive : st.agents;
      tiles.push(tile('agents alive', `${alive} / ${st.agents}`, 'as the server counts them', st.agents ? alive / st.agents : null, 'alive'));
      tiles.push(tile('virtual time', isNum(T) ? fmtNum(Number(T.toFixed(3))) : DASH, st.clock === 'wall' ? 'model seconds' : 'virtual seconds', null, 'time'));
      tiles.push(tile('wall time', fmtDuration(wall), end ? 'run finished' : 'since the run started', null, 'wall'));
      tiles.push(tile('late · dropped · rejected', `${run.totals.late} · ${run.totals.dropped} · ${run.totals.rejected}`, 'totals over the rounds', null, 'totals'));
      if (!end && progress > 0 && progress < 1 && isNum(wall)) left = wall * (1 - progress) / progress;
    } else {
      const last = run.phases[run.phases.length - 1];
      const Tp = st.pulls_per_client, pulls = last ? last.pulls : 0;
      tiles.push(tile('pulls per client', `${pulls} / ${Tp}`, last ? `phase ${last.phase}, depth ${last.depth}` : 'no phase closed yet', Tp ? pulls / Tp : null, 'pulls'));
      tiles.push(tile('regret so far', last ? fmtP(last.regret) : DASH, 'mean cumulative regret', null, 'regret'));
      if (st.private) tiles.push(tile('ε budget', isNum(st.epsilon_budget) ? fmtNum(st.epsilon_budget) : 'none', end && isNum(end.epsilon) ? `spent ${fmtP(end.epsilon)}` : 'spent at the end', null, 'epsilon'));
      const alive = last ? last.alive : st.agents;
      tiles.push(tile('clients alive', `${alive} / ${st.agents}`, last ? `${last.survivors} surviving arms` : '', st.agents ? alive / st.agents : null, 'alive'));
      tiles.push(tile('virtual time', isNum(T) ? fmtNum(Number(T.toFixed(3))) : DASH, st.clock === 'wall' ? 'model seconds' : 'virtual seconds', null, 'time'));
      tiles.push(tile('wall time', fmtDuration(wall), end ? 'run finished' : 'since the run started', null, 'wall'));
      tiles.push(tile('late · rejected · excluded', `${run.totals.late} · ${run.totals.rejected} · ${run.totals.excluded}`, 'totals over the phases', null, 'totals'));
      if (!end && pulls > 0 && Tp > pulls && isNum(wall)) left = (wall / pulls) * (Tp - pulls);
    }
    tiles.push(tile('faults', String(run.faultTotal), Array.from(run.faults, ([k, v]) => `${k} ${v}`).join(', ') || 'none', null, 'faults'));
    tiles.push(tile('time left', end ? 'done' : left != null ? '≈ ' + fmtDuration(left) : DASH, end ? '' : 'at the pace so far', null, 'left'));
    $('tiles').innerHTML = tiles.join('');

    if (!pne) {
      const rs = run.rounds;
      drawChart($('chart-regret-t'), { xLabel: 'virtual time', yLabel: 'regret', yFromZero: true,
        series: [{ name: 'mean simple regret', color: C.regret, pts: rs.map((r) => [r.t, r.regret]) }] });
      drawChart($('chart-regret-wall'), { empty: st.wall === null ? 'no wall times: rebuilt from the run\'s files' : undefined, xLabel: 'wall time (s)', yLabel: 'regret', yFromZero: true,
        series: [{ name: 'mean simple regret', color: C.wall, pts: rs.map((r) => [r.wall, r.regret]) }] });
      if (st.private) {
        const pv = run.privacy;
        const budget = pv.length && pv[pv.length - 1].budget !== undefined ? pv[pv.length - 1].budget : st.epsilon_budget;
        const series = [{ name: 'ε (accountant)', color: C.eps, pts: pv.length ? pv.map((p) => [p.round, p.epsilon]) : rs.map((r) => [r.round, r.epsilon]) }];
        if (pv.some((p) => isNum(p.epsilon_rdp))) series.push({ name: 'ε RDP', color: C.rdp, dash: '6 3', noDots: true, pts: pv.map((p) => [p.round, p.epsilon_rdp]) });
        if (pv.some((p) => isNum(p.epsilon_pld))) series.push({ name: 'ε PLD', color: C.pld, dash: '2 3', noDots: true, pts: pv.map((p) => [p.round, p.epsilon_pld]) });
        drawChart($('chart-epsilon'), { xLabel: 'round', yLabel: 'ε', xInteger: true, yFromZero: true, series,
          hlines: isNum(budget) ? [{ y: budget, name: `budget ${fmtNum(budget)}`, color: C.budget }] : [] });
      } else drawChart($('chart-epsilon'), { series: [], empty: 'not a private run' });
      const keys = ['participants', 'late', 'dropped', 'rejected'];
      if (rs.length <= 80) {
        drawChart($('chart-counts'), { xLabel: 'round', yLabel: 'agents', xInteger: true, yInteger: true,
          bars: { cats: rs.map((r) => r.round), series: keys.map((k) => ({ name: k, color: C[k], values: rs.map((r) => r[k]) })) } });
      } else {
        const per = Math.ceil(rs.length / 200);
        drawChart($('chart-counts'), { xLabel: per > 1 ? `round (mean of every ${per} rounds)` : 'round', yLabel: 'agents', xInteger: true, yFromZero: true,
          series: keys.map((k) => ({ name: k, color: C[k], noDots: true, mean: true, pts: rs.map((r) => [r.round, r[k]]) })) });
      }
    } else {
      const ps = run.phases;
      drawChart($('chart-regret-t'), { xLabel: 'virtual time', yLabel: 'mean cumulative regret', yFromZero: true,
        series: [{ name: 'mean cumulative regret', color: C.regret, pts: ps.map((p) => [p.t, p.regret]) }] });
      drawChart($('chart-regret-wall'), { empty: st.wall === null ? 'no wall times: rebuilt from the run\'s files' : undefined, xLabel: 'wall time (s)', yLabel: 'mean cumulative regret', yFromZero: true,
        series: [{ name: 'mean cumulative regret', color: C.wall, pts: ps.map((p) => [p.wall, p.regret]) }] });
      drawChart($('chart-regret-pulls'), { xLabel: 'pulls per client', yLabel: 'mean cumulative regret', yFromZero: true,
        series: [{ name: 'mean cumulative regret', color: C.regret, pts: ps.map((p) => [p.pulls, p.regret]) }] });
      drawChart($('chart-alive'), { xLabel: 'phase', yLabel: 'clients / arms', xInteger: true, yInteger: true,
        bars: { cats: ps.map((p) => p.phase), series: [
          { name: 'clients alive', color: C.alive, values: ps.map((p) => p.alive) },
          { name: 'surviving arms', color: C.survivors, values: ps.map((p) => p.survivors) }] },
        hlines: [{ y: st.agents, name: `N = ${st.agents}`, color: C.budget }] });
    }
    drawAgents(run);
    renderFaults(run);
    const kinds = Array.from(run.faultTimes.keys()).sort();
    drawChart($('chart-faults'), { h: 230, xLabel: 'virtual time', yLabel: 'faults so far', yFromZero: true, empty: 'no faults yet',
      series: kinds.map((k) => ({ name: k, color: FAULT_COLORS[k] || '#777', noDots: true, step: true, pts: run.faultTimes.get(k) })) });
  }

  const mean = (xs) => { const v = xs.filter(isNum); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };
  function renderSweep() {
    const W = S.sweep;
    const runs = Array.from(W.runs.values());
    const ended = runs.filter((r) => r.data.end);
    const incomplete = ended.filter((r) => !r.data.end.completed);
    const pneAll = runs.length > 0 && runs.every((r) => r.data.family === 'fed-pne');
    const pts = Array.from(W.points.values());
    $('title').textContent = ['sweep', Array.from(W.scenarios).join(', '), Array.from(W.algorithms).join(', '),
      `${pts.length} grid point${pts.length === 1 ? '' : 's'}`, `${runs.length} run${runs.length === 1 ? '' : 's'}`].join(' · ');
    if (S.done) setStatus('completed', incomplete.length ? `${incomplete.length} run(s) incomplete: ${incomplete.map((r) => r.name).join(', ')}` : '');
    else setStatus('running', '');
    const lastWall = W.lastRun ? W.lastRun.data.lastWall : null;
    $('tiles').innerHTML = [
      tile('runs ended', `${ended.length} / ${runs.length}`, S.done ? 'all received' : 'received so far', runs.length ? ended.length / runs.length : null),
      tile('grid points', String(pts.length), ''),
      tile('incomplete runs', String(incomplete.length), incomplete.length ? incomplete[0].data.end.reason || '' : 'none'),
      tile('current run', W.lastRun ? W.lastRun.name : DASH, W.lastRun ? `wall ${fmtDuration(lastWall)}` : '', null, 'run'),
    ].join('');

    // per point: mean regret at each round (phase) over its runs
    const series = [];
    const tbody = document.querySelector('table#runs tbody');
    for (const p of pts) {
      const mine = runs.filter((r) => r.point === p.name);
      const sum = [], cnt = [];
      for (const r of mine) {
        const lines = r.data.family === 'fed-pne' ? r.data.phases : r.data.rounds;
        const key = r.data.family === 'fed-pne' ? 'phase' : 'round';
        for (const l of lines) { if (!isNum(l.regret)) continue; const k = l[key]; sum[k] = (sum[k] || 0) + l.regret; cnt[k] = (cnt[k] || 0) + 1; }
      }
      const curve = [];
      for (let k = 0; k < sum.length; k++) if (cnt[k]) curve.push([k, sum[k] / cnt[k]]);
      series.push({ name: p.name, color: p.color, pts: curve, noDots: curve.length > 40 });
      const ends = mine.map((r) => r.data.end).filter(Boolean);
      const row = {
        point: p.name, runs: mine.length,
        rounds: mean(mine.map((r) => (r.data.end ? (r.data.end.rounds ?? r.data.end.phases) : (r.data.family === 'fed-pne' ? r.data.phases.length : r.data.rounds.length)))),
        regret: mean(ends.map((e) => (e.final_simple_regret !== undefined ? e.final_simple_regret : e.average_cumulative_regret))),
        epsilon: mean(ends.map((e) => e.epsilon)),
      };
      if (!p.row || !p.row.isConnected) {
        p.row = document.createElement('tr'); p.row.dataset.point = p.name; tbody.appendChild(p.row);
      }
      fillRow(p.row, RUN_COLS, row);
      const c0 = p.row.children[0];
      if (!c0.firstElementChild) { const sw = document.createElement('span'); sw.className = 'sw'; sw.style.background = p.color; c0.prepend(sw); }
    }
    $('sweep-caption').textContent = pneAll ? 'Mean cumulative regret vs phase, mean over each grid point\'s runs'
      : 'Regret vs round, mean over each grid point\'s runs';
    drawChart($('chart-sweep'), { w: 900, h: 380, xLabel: pneAll ? 'phase' : 'round', yLabel: pneAll ? 'mean cumulative regret' : 'regret',
      xInteger: true, yFromZero: true, series });
  }

  // ---------- holding the load event for headless Chromium ----------
  // chromium --headless --dump-dom (or --screenshot) acts at the page's load event, which an
  // EventSource does not delay: it would capture the page before any line arrived. In plain
  // headless Chromium (not under DevTools automation), or with ?hold=MS (?hold=0: never), the
  // page keeps its load event pending, with a hidden iframe whose document stays open, until the
  // stream's `done` has been rendered, the connection is closed, or MS milliseconds (60 s by
  // default) have passed. Add --timeout=MS to capture the page earlier while a run streams
  // (the browser then stops loading and acts).
  let hold = null;
  function holdLoad() {
    const params = new URLSearchParams(location.search);
    // plain `chromium --headless`, not one driven by DevTools (Playwright, Puppeteer set
    // navigator.webdriver and wait for selectors, not for the load event)
    const headless = /Headless/i.test(navigator.userAgent) && !navigator.webdriver;
    const ms = params.has('hold') ? Number(params.get('hold')) : headless ? 60000 : 0;
    if (!(ms > 0) || document.readyState === 'complete') return;
    const f = document.createElement('iframe');
    f.hidden = true; f.title = 'load hold'; f.setAttribute('aria-hidden', 'true');
    document.body.appendChild(f);
    const d = f.contentDocument;
    d.open();
    hold = { f, d, timer: setTimeout(releaseLoad, ms) };
  }
  function releaseLoad() {
    if (!hold) return;
    const h = hold; hold = null;
    clearTimeout(h.timer);
    try { h.d.close(); } catch (e) { /* already closed */ }
    h.f.remove();
  }
  function releaseAfterRender() { if (hold) requestAnimationFrame(() => setTimeout(releaseLoad, 50)); }

  // ---------- connection ----------
  function connect() {
    S = freshState();
    ROUND_COLS = colsOf('rounds'); PHASE_COLS = colsOf('phases'); RUN_COLS = colsOf('runs');
    // A report (fedsim report DIR): the stream is in the page, there is no server.
    if (Array.isArray(window.FEDSIM_STREAM)) {
      $('source').textContent = 'data inline (fedsim report)';
      for (const d of window.FEDSIM_STREAM) { stats.lines++; ingest(d); }
      S.done = true; S.dirty = true; schedule();
      window.addEventListener('resize', () => { S.dirty = true; schedule(); });
      return;
    }
    holdLoad();
    setStatus('connecting', '');
    if (typeof EventSource === 'undefined') { setStatus('connecting', 'this browser has no EventSource'); return; }
    const es = new EventSource('events');
    let opened = 0;
    es.onopen = () => {
      if (opened++ > 0) { // a reconnect: the server replays the stream from its start
        S = freshState(); S.dirty = true; schedule();
      }
    };
    es.onmessage = (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      if (stats.firstLine == null) stats.firstLine = performance.now();
      stats.lines++;
      ingest(d);
      schedule();
    };
    es.addEventListener('done', () => {
      es.close();
      S.done = true; S.dirty = true; schedule();
      releaseAfterRender();
    });
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED && !S.done) { S.dirty = true; schedule(); releaseAfterRender(); }
    };
    window.addEventListener('resize', () => { S.dirty = true; schedule(); });
    window.fedsimDashboard = { state: () => S, stats }; // for debugging from the console
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', connect); else connect();
})();
