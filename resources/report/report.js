/* tcprof report.html charts (inlined at render time). Reads the JSON in #tcprof-data and draws
   step time, throughput and memory per arm with uPlot: drag to zoom (every step chart follows),
   double-click to reset, hover for values. The step charts of a batch size share one x axis and
   range (D.x), so they end at the same step; a round can be chosen when there are several.
   Everything shown comes from textContent / canvas text, never innerHTML. */
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
  var state = { bs: D.batch_sizes.length ? D.batch_sizes[0] : null, log: false, round: 0 };
  var T = D.throughput || { unit: "samples", work: null, phase: "bs" };
  function phaseWord() { return T.phase === "bs" ? "batch size" : T.phase || "the script"; }

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
  // Every step-based chart of a batch size shares one x axis (D.x): the step as the worker
  // counts it (0 the first, compiling step; memory readings and markers count the same way),
  // over one range per batch size, so the step chart and the memory chart end at the same x.
  function xRange(bs) {
    var r = D.x && D.x.ranges ? D.x.ranges[String(bs)] : null;
    return r && r.length === 2 ? r : [0, 0];
  }
  function xLabel() { return D.x && D.x.label ? D.x.label : "step"; }
  // Steps of one batch size in the chosen round: a column per arm over the whole x range
  // (null where the arm has no step: the first step, the discarded step before each block).
  function stepSeries(bs, perStep) {
    var range = xRange(bs), lo = range[0], len = range[1] - range[0] + 1;
    var x = [], warm = 0, any = false;
    for (var i = 0; i < len; i++) x.push(lo + i);
    var cols = D.arms.map(function (arm) {
      var col = new Array(len).fill(null), s = sample(arm.name, bs);
      if (!s) return col;
      function put(step, ms) {
        var at = step - lo;
        if (at >= 0 && at < len && ms != null) { col[at] = perStep(ms, arm.name); any = true; }
      }
      if (state.round === 0) {
        warm = Math.max(warm, (s.warmup_ms || []).length);
        (s.warmup_ms || []).forEach(function (ms, k) { put(1 + k, ms); });
      }
      (s.runs || []).forEach(function (run) {
        if (run[0] !== state.round) return;
        for (var k = 0; k < run[3]; k++) put(run[1] + k, s.ms[run[2] + k]);
      });
      return col;
    });
    return { data: [x].concat(cols), warm: warm, empty: !any, range: range };
  }
  // Memory readings (the first round's) at their steps, with the range's ends so the chart
  // spans the same x as the step charts.
  function memorySeries(bs) {
    var range = xRange(bs), steps = {}, perArm = [], any = false;
    steps[range[0]] = true;
    steps[range[1]] = true;
    D.arms.forEach(function (arm) {
      var s = sample(arm.name, bs), m = {};
      (s ? s.memory || [] : []).forEach(function (r) {
        var v = D.cuda ? r[2] : r[1];
        if (r[0] != null && v != null) { m[r[0]] = v; steps[r[0]] = true; any = true; }
      });
      perArm.push(m);
    });
    var x = Object.keys(steps).map(Number).sort(function (a, b) { return a - b; });
    var data = [x].concat(perArm.map(function (m) { return x.map(function (k) { return k in m ? m[k] : null; }); }));
    return { data: data, warm: D.warmup, empty: !any, range: range };
  }
  // Draws the warm-up band and the recompile markers of the chosen batch size.
  function overlay(warm, showMarkers, note) {
    return {
      hooks: {
        setScale: [syncX],
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
          if (note) {
            u.ctx.save();
            u.ctx.fillStyle = fg;
            u.ctx.font = 11 * devicePixelRatio + "px sans-serif";
            u.ctx.fillText(note, u.bbox.left + 4 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
            u.ctx.restore();
          }
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
  // Zooming one step chart zooms the others to the same x.
  var syncing = false;
  function syncX(u, key) {
    if (key !== "x" || syncing) return;
    syncing = true;
    plots.forEach(function (p) {
      if (p.u !== u && p.sync) p.u.setScale("x", { min: u.scales.x.min, max: u.scales.x.max });
    });
    syncing = false;
  }
  function makePlot(el, opts, data, sync) {
    var width = Math.max(300, el.clientWidth - 4);
    opts.width = width;
    opts.height = 260;
    var entry = { el: el, u: null, sync: !!sync };
    plots.push(entry);
    entry.u = new uPlot(opts, data, el);
    return entry.u;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function empty(el, text) {
    var d = document.createElement("div");
    d.className = "empty";
    d.textContent = text;
    el.appendChild(d);
  }
  // A step's work in the throughput's unit: a model file's batch size; a script's measured
  // samples, tokens or 1 (steps) per step.
  function workPerStep(arm, bs) {
    if (!T.work) return bs;
    var w = (T.work[arm] || {})[String(bs)];
    return w == null ? null : w;
  }
  function drawStepCharts() {
    plots.forEach(function (p) { p.u.destroy(); });
    plots = [];
    var bs = state.bs;
    var yScale = { y: { distr: state.log ? 3 : 1 } };
    var cursor = { sync: { key: "tcprof-steps" }, drag: { x: true, y: false } };
    var stepX = {
      label: xLabel(), stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 },
      incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000],
    };
    var later = state.round > 0 ? "memory: round 1 (the only one recorded)" : null;
    var specs = [
      { id: "chart-step-time", title: "ms", series: stepSeries(bs, function (ms) { return ms; }), unit: " ms", digits: null, markers: true },
      { id: "chart-throughput", title: T.unit + "/s", series: stepSeries(bs, function (ms, arm) { var w = workPerStep(arm, bs); return ms > 0 && w != null ? w * 1000 / ms : null; }), unit: "/s", digits: 0, markers: true },
      { id: "chart-memory", title: D.cuda ? "CUDA allocated MB" : "process RSS MB", series: memorySeries(bs), unit: " MB", digits: 1, markers: false, note: later },
    ];
    specs.forEach(function (spec) {
      var el = document.getElementById(spec.id);
      if (!el) return;
      clear(el);
      if (spec.series.empty) { empty(el, "no samples for this batch size"); return; }
      var range = spec.series.range;
      var xScale = { x: { time: false, range: function () { return [range[0], range[1]]; } } };
      makePlot(el, {
        scales: Object.assign(xScale, spec.id === "chart-memory" ? {} : yScale),
        cursor: cursor,
        axes: [stepX, axis(spec.title)],
        series: [{ label: "step", value: function (u, v) { return v == null ? "-" : String(v); } }].concat(armSeries(spec.unit, spec.digits)),
        plugins: [overlay(spec.id === "chart-memory" ? 0 : spec.series.warm, spec.markers, spec.note)],
      }, spec.series.data, true);
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
        var v = r ? (T.work ? r.work_per_s : r.samples_per_s) : null;
        return v != null ? v : null;
      });
    }));
    var series = [{ label: "batch size", value: function (u, v) { return v == null ? "-" : String(v); } }].concat(
      D.arms.map(function (arm, i) {
        return { label: arm.name, stroke: color(i), width: 2, spanGaps: true, points: { show: true, size: 7 },
          value: function (u, v) { return fmt(v, 0, "/s"); } };
      }));
    makePlot(el, {
      scales: { x: { time: false, distr: 2 } },
      axes: [axis(phaseWord()), axis("median " + T.unit + "/s")],
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
        b.textContent = T.phase ? T.phase + "=" + bs : "the script";
        b.setAttribute("aria-pressed", String(bs === state.bs));
        b.addEventListener("click", function () {
          state.bs = bs;
          Array.prototype.forEach.call(box.children, function (c) { c.setAttribute("aria-pressed", String(c === b)); });
          drawStepCharts();
        });
        box.appendChild(b);
      });
    }
    var controls = document.querySelector("#charts .controls");
    if (controls && (D.rounds || 1) > 1) {  // which round the step charts show
      var group = document.createElement("div");
      group.className = "group";
      var label = document.createElement("span");
      label.className = "muted";
      label.textContent = "round";
      group.appendChild(label);
      var rounds = document.createElement("span");
      rounds.className = "group";
      rounds.id = "round-buttons";
      for (var r = 0; r < D.rounds; r++) {
        (function (round) {
          var b = document.createElement("button");
          b.type = "button";
          b.textContent = String(round + 1);
          b.setAttribute("aria-pressed", String(round === state.round));
          b.addEventListener("click", function () {
            state.round = round;
            Array.prototype.forEach.call(rounds.children, function (c) { c.setAttribute("aria-pressed", String(c === b)); });
            drawStepCharts();
          });
          rounds.appendChild(b);
        })(r);
      }
      group.appendChild(rounds);
      controls.insertBefore(group, controls.children[1] || null);
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
