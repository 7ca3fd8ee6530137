// charts.js draws the report's interactive line charts: every element of class "uchart" holds
// its chart's data as JSON (interactive.go) and becomes a uPlot chart. The charts of one
// data-sync group share one cursor (hovering one shows the same x in all, each
// configuration's value in their legends) and one zoom (drag to zoom all, double-click to
// reset all). A null value is a gap in the line, never a zero; a lone point between gaps, and
// every point of a short series, is drawn as a dot.
(() => {
  "use strict";
  const font = '"Liberation Sans", Arial, Helvetica, sans-serif';
  const height = 260;

  // compact formats an axis tick: 1.5k, 12M.
  const compact = v => {
    const a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + "k";
    return String(+v.toPrecision(4));
  };
  // exact formats a value in the legend: whole numbers from 100 on, else 3 digits.
  const exact = v => Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en-US") : String(+v.toPrecision(3));

  // spacing is the median distance between a series' consecutive x.
  const spacing = xs => {
    const d = [];
    for (let i = 1; i < xs.length; i++) d.push(xs[i] - xs[i - 1]);
    d.sort((a, b) => a - b);
    return d.length ? d[d.length >> 1] : Infinity;
  };

  // lone returns the indexes of ys (joined data) with a value whose neighbours with a value or
  // a gap are gaps or the ends: points no line reaches, drawn as dots.
  const lone = ys => {
    const out = [];
    let prev = null; // the previous non-undefined value: null at the start
    for (let i = 0; i < ys.length; i++) {
      if (ys[i] === undefined) continue;
      if (ys[i] !== null && prev === null) {
        let j = i + 1;
        while (j < ys.length && ys[j] === undefined) j++;
        if (j >= ys.length || ys[j] === null) out.push(i);
      }
      prev = ys[i];
    }
    return out;
  };

  // few reports whether series si has at most 15 points in view: a short series (a tiny run,
  // or a zoom into a few seconds) is drawn with a dot at each point.
  const few = (u, si) => {
    const [i0, i1] = u.series[0].idxs, ys = u.data[si];
    let n = 0;
    for (let i = i0; i <= i1 && n <= 15; i++) if (ys[i] != null) n++;
    return n <= 15;
  };

  const charts = new Map(); // id -> uPlot: the tests probe them
  window.reportCharts = charts;

  const build = el => {
    const d = JSON.parse(el.querySelector('script[type="application/json"]').textContent);
    const data = uPlot.join(d.series.map(s => [s.x, s.y]), d.series.map(() => [null, 2]));
    const series = [{label: d.xlabel, value: (u, v) => v == null ? "" : exact(v)}];
    const spacings = [0];
    d.series.forEach((s, k) => {
      const si = k + 1, dots = lone(data[si]);
      spacings.push(spacing(s.x));
      series.push({
        label: s.name, stroke: s.color, width: 1.5, dash: s.dash, spanGaps: false,
        points: {size: 6, fill: s.color, show: few, filter: (u, i, show) => show || !dots.length ? null : dots},
        // The value at the cursor's point of this series (uPlot's hover): "–" in a gap, ""
        // when the series has no point near.
        value: (u, v, i, idx) => idx == null ? "" : v == null ? "–" : exact(v),
      });
    });
    const axis = (label, size) => ({label, size, font: "11px " + font, labelFont: "bold 11px " + font,
      values: (u, vs) => vs.map(compact), grid: {stroke: "#e3e3e3", width: 1}, ticks: {stroke: "#bbb", width: 1}});
    const u = new uPlot({
      title: d.title, width: Math.max(el.clientWidth, 200), height,
      scales: {
        // A little room on both sides, so that the dots of a short series are not cut in half
        // at the edges; a single x gets a range around it.
        x: {time: false, range: (u, lo, hi) => hi > lo ? [lo - (hi - lo) * 0.02, hi + (hi - lo) * 0.02] : [lo - 1, hi + 1]},
        // From 0 for non-negative values, as the SVG charts: a dip is not exaggerated.
        y: {range: (u, lo, hi) => {
          const from = lo >= 0 ? 0 : lo;
          return [from, hi > from ? hi + (hi - from) * 0.05 : from + 1];
        }},
      },
      axes: [axis(d.xlabel, 40), axis(d.ylabel, 58)],
      // One cursor line across the step's charts (a horizontal one would mean nothing in the
      // others), and a drag zooms x only.
      // Where a series has no point at the cursor's x (the configurations' seconds end a few
      // milliseconds apart), its legend and dot take its nearest point within its own typical
      // spacing; a null there is a gap, shown "–".
      cursor: {y: false, sync: {key: el.dataset.sync}, drag: {x: true, y: false},
        hover: {prox: (u, si) => Math.abs(u.valToPos(spacings[si], "x") - u.valToPos(0, "x"))}},
      legend: {live: true, markers: {width: 2, fill: (u, i) => i > 0 ? d.series[i - 1].color : null}},
      series,
    }, data, el);
    charts.set(el.dataset.chart, u);
    new ResizeObserver(() => {
      const w = Math.max(el.clientWidth, 200);
      if (Math.abs(w - u.width) >= 1) u.setSize({width: w, height});
    }).observe(el);
  };

  const drawn = [];
  for (const el of document.querySelectorAll(".uchart")) {
    try {
      build(el);
      drawn.push(el.dataset.chart);
    } catch (e) {
      console.error("chart " + el.dataset.chart + ": " + e);
    }
  }
  document.body.dataset.chartsDrawn = drawn.length;
})();
