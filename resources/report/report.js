/* tcprof report.html charts (inlined at render time). Reads the JSON in #tcprof-data and draws
   step time, throughput and memory per arm with uPlot: drag to zoom, double-click to reset,
   hover for values. Everything shown comes from textContent / canvas text, never innerHTML. */
(function () {
  "use strict";
  var dataEl = document.getElementById("tcprof-data");
  if (!dataEl || typeof uPlot === "undefined") return;
  var D = JSON.parse(dataEl.textContent);
  var css = getComputedStyle(document.documentElement);
  function cssVar(name) { return css.getPropertyValue(name).trim(); }
  // One colour per arm, from profiler/palette.py (the window uses the same list).
  function color(i) { var c = D.colours || ["#0072B2"]; return c[i % c.length]; }
  var fg = cssVar("--muted") || "#59636e";
  var grid = cssVar("--grid") || "rgba(0,0,0,0.07)";
  var shade = cssVar("--shade") || "rgba(130,130,130,0.1)";

  var plots = [];
  var state = { bs: D.batch_sizes.length ? D.batch_sizes[0] : null, log: false };

  function fmt(v, digits, unit) {
    if (v == null || !isFinite(v)) return "-";
    var a = Math.abs(v);
    var d = digits != null ? digits : (a >= 100 ? 0 : a >= 1 ? 2 : 3);
    return v.toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d }) + (unit || "");
  }
  function axis(label, values) {
    var a = { label: label, stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    if (values) a.values = values;
    // Room for the longest tick label plus the axis title, so they never overlap.
    a.size = function (u, vals) {
      var longest = 0;
      (vals || []).forEach(function (v) { longest = Math.max(longest, String(v).length); });
      return 34 + longest * 7;
    };
    return a;
  }
  function sample(arm, bs) {
    for (var i = 0; i < D.samples.length; i++) {
      var s = D.samples[i];
      if (s.arm === arm && s.batch_size === bs) return s;
    }
    return null;
  }
  // Steps of one batch size: x = step index (1.. warm-up, then measured), y per arm.
  function stepSeries(bs, perStep) {
    var cols = [], maxLen = 0, warm = 0;
    D.arms.forEach(function (arm) {
      var s = sample(arm.name, bs), ys = [];
      if (s) {
        warm = Math.max(warm, (s.warmup_ms || []).length);
        (s.warmup_ms || []).concat(s.ms || []).forEach(function (ms) { ys.push(perStep(ms)); });
      }
      cols.push(ys);
      maxLen = Math.max(maxLen, ys.length);
    });
    var x = [];
    for (var i = 1; i <= maxLen; i++) x.push(i);
    var data = [x].concat(cols.map(function (ys) {
      var out = ys.slice();
      while (out.length < maxLen) out.push(null);
      return out;
    }));
    return { data: data, warm: warm, empty: maxLen === 0 };
  }
  function memorySeries(bs) {
    var steps = {}, perArm = [];
    D.arms.forEach(function (arm) {
      var s = sample(arm.name, bs), m = {};
      (s ? s.memory || [] : []).forEach(function (r) {
        var v = D.cuda ? r[2] : r[1];
        if (r[0] != null && v != null) { m[r[0]] = v; steps[r[0]] = true; }
      });
      perArm.push(m);
    });
    var x = Object.keys(steps).map(Number).sort(function (a, b) { return a - b; });
    var data = [x].concat(perArm.map(function (m) { return x.map(function (k) { return k in m ? m[k] : null; }); }));
    return { data: data, warm: D.warmup, empty: x.length === 0 };
  }
  // Draws the warm-up band and the recompile markers of the chosen batch size.
  function overlay(warm, showMarkers) {
    return {
      hooks: {
        drawClear: [function (u) {
          if (!warm) return;
          var x0 = u.valToPos(0.5, "x", true), x1 = u.valToPos(warm + 0.5, "x", true);
          var l = Math.max(x0, u.bbox.left), r = Math.min(x1, u.bbox.left + u.bbox.width);
          if (r <= l) return;
          u.ctx.save();
          u.ctx.fillStyle = shade;
          u.ctx.fillRect(l, u.bbox.top, r - l, u.bbox.height);
          u.ctx.fillStyle = fg;
          u.ctx.font = 11 * devicePixelRatio + "px sans-serif";
          u.ctx.fillText("warm-up", l + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
          u.ctx.restore();
        }],
        draw: [function (u) {
          if (!showMarkers) return;
          (D.markers || []).forEach(function (mk) {
            if (mk.batch_size !== state.bs) return;
            var idx = D.arms.findIndex(function (a) { return a.name === mk.arm; });
            var x = u.valToPos(mk.step, "x", true);
            if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            u.ctx.save();
            u.ctx.strokeStyle = color(idx);
            u.ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
            u.ctx.lineWidth = devicePixelRatio;
            u.ctx.beginPath();
            u.ctx.moveTo(x, u.bbox.top);
            u.ctx.lineTo(x, u.bbox.top + u.bbox.height);
            u.ctx.stroke();
            u.ctx.fillStyle = color(idx);
            u.ctx.font = 11 * devicePixelRatio + "px sans-serif";
            u.ctx.fillText(mk.label, x + 3 * devicePixelRatio, u.bbox.top + 26 * devicePixelRatio);
            u.ctx.restore();
          });
        }],
      },
    };
  }
  function armSeries(unit, digits) {
    return D.arms.map(function (arm, i) {
      return {
        label: arm.name, stroke: color(i), width: 1.5, spanGaps: true,
        points: { show: false },
        value: function (u, v) { return fmt(v, digits, unit); },
      };
    });
  }
  function makePlot(el, opts, data) {
    var width = Math.max(300, el.clientWidth - 4);
    opts.width = width;
    opts.height = 260;
    var u = new uPlot(opts, data, el);
    plots.push({ el: el, u: u });
    return u;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function empty(el, text) {
    var d = document.createElement("div");
    d.className = "empty";
    d.textContent = text;
    el.appendChild(d);
  }
  function drawStepCharts() {
    plots.forEach(function (p) { p.u.destroy(); });
    plots = [];
    var bs = state.bs;
    var yScale = { y: { distr: state.log ? 3 : 1 } };
    var cursor = { sync: { key: "tcprof-steps" }, drag: { x: true, y: false } };
    var stepX = {
      label: "step", stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 },
      incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000],
    };
    var specs = [
      { id: "chart-step-time", title: "ms", series: stepSeries(bs, function (ms) { return ms; }), unit: " ms", digits: null, markers: true },
      { id: "chart-throughput", title: "samples/s", series: stepSeries(bs, function (ms) { return ms > 0 ? bs * 1000 / ms : null; }), unit: "/s", digits: 0, markers: true },
      { id: "chart-memory", title: D.cuda ? "CUDA allocated MB" : "process RSS MB", series: memorySeries(bs), unit: " MB", digits: 1, markers: false },
    ];
    specs.forEach(function (spec) {
      var el = document.getElementById(spec.id);
      if (!el) return;
      clear(el);
      if (spec.series.empty) { empty(el, "no samples for this batch size"); return; }
      makePlot(el, {
        scales: Object.assign({ x: { time: false } }, spec.id === "chart-memory" ? {} : yScale),
        cursor: cursor,
        axes: [stepX, axis(spec.title)],
        series: [{ label: "step", value: function (u, v) { return v == null ? "-" : String(v); } }].concat(armSeries(spec.unit, spec.digits)),
        plugins: [overlay(spec.id === "chart-memory" ? 0 : spec.series.warm, spec.markers)],
      }, spec.series.data);
    });
    drawScaling();
  }
  // Median throughput against batch size, one line per arm (all batch sizes at once).
  function drawScaling() {
    var el = document.getElementById("chart-scaling");
    if (!el) return;
    clear(el);
    var bss = D.batch_sizes.slice();
    if (!bss.length || !D.summary.length) { empty(el, "no measured batch size"); return; }
    var data = [bss].concat(D.arms.map(function (arm) {
      return bss.map(function (bs) {
        var r = D.summary.find(function (s) { return s.arm === arm.name && s.batch_size === bs; });
        return r && r.samples_per_s != null ? r.samples_per_s : null;
      });
    }));
    var series = [{ label: "batch size", value: function (u, v) { return v == null ? "-" : String(v); } }].concat(
      D.arms.map(function (arm, i) {
        return { label: arm.name, stroke: color(i), width: 2, spanGaps: true, points: { show: true, size: 7 },
          value: function (u, v) { return fmt(v, 0, "/s"); } };
      }));
    makePlot(el, {
      scales: { x: { time: false, distr: 2 } },
      axes: [axis("batch size"), axis("median samples/s")],
      series: series,
      cursor: { drag: { x: false, y: false } },
    }, data);
  }
  function setupControls() {
    var box = document.getElementById("bs-buttons");
    if (box) {
      D.batch_sizes.forEach(function (bs) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = "bs=" + bs;
        b.setAttribute("aria-pressed", String(bs === state.bs));
        b.addEventListener("click", function () {
          state.bs = bs;
          Array.prototype.forEach.call(box.children, function (c) { c.setAttribute("aria-pressed", String(c === b)); });
          drawStepCharts();
        });
        box.appendChild(b);
      });
    }
    var log = document.getElementById("log-scale");
    if (log) log.addEventListener("change", function () { state.log = log.checked; drawStepCharts(); });
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        plots.forEach(function (p) { p.u.setSize({ width: Math.max(300, p.el.clientWidth - 4), height: 260 }); });
      }, 100);
    });
    document.querySelectorAll("button.copy").forEach(function (btn) {
      btn.addEventListener("click", function (ev) {
        ev.preventDefault(); // inside <summary>: copy without folding the code
        var pre = document.getElementById(btn.getAttribute("data-target"));
        if (!pre) return;
        var text = pre.textContent;
        var done = function () { btn.textContent = "copied"; setTimeout(function () { btn.textContent = "copy"; }, 1500); };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () { selectText(pre); });
        } else { selectText(pre); }
      });
    });
  }
  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  setupControls();
  drawStepCharts();
})();
