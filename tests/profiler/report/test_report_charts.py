"""report.html's charts: the step-time, throughput and memory charts of a batch size share one x
axis and range (`chart_data`'s `x`), so they end at the same step; the script draws them so and
zooms them together (run under node with stand-ins for the page and uPlot, when node is here)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import ASSETS, chart_data
from tests.support.synthetic import synthetic_session

pytestmark = pytest.mark.timeout(60)


def _long_session(rounds: int = 5, steps: int = 7000, warmup: int = 2) -> dict:
    """Two arms at one batch size, `rounds` rounds of one block of `steps` steps each; memory
    read in the first round only, every 1,000 steps and at the last (as the worker reads it)."""
    session = synthetic_session()
    session["config"]["warmup"] = warmup
    session["config"]["replicates"] = rounds
    last = 1 + warmup + 1 + steps - 1  # first step, warm-up, the discarded step, the block
    for s in session["samples"]:
        s["warmup_ms"] = [2.0] * warmup
        s["ms"] = [1.0] * (steps * rounds)
        s["blocks"] = [[rep, 0, steps] for rep in range(rounds)]
        s["memory"] = [[step, 300.0, None, None] for step in (0, 1000, 4000, last)]
    return session


def test_every_chart_of_a_batch_size_shares_one_x_range():
    data = chart_data(SessionModel.read(_long_session()))
    bs = str(data["batch_sizes"][0])
    low, high = data["x"]["ranges"][bs]
    memory_end = max(r[0] for s in data["samples"] for r in s["memory"])
    step_end = max(x0 + n - 1 for s in data["samples"] for _rep, x0, _i, n in s["runs"])
    assert (low, high) == (0, 7003) == (0, memory_end) == (0, step_end)
    assert high < 35_000, "the step chart no longer runs through every round's steps in a row"
    assert data["rounds"] == 5 and "step" in data["x"]["label"]
    assert [len(s["ms"]) for s in data["samples"]] == [35_000, 35_000], "the samples stay whole"


def test_steps_are_placed_as_the_worker_counts_them():
    session = synthetic_session()
    session["config"]["warmup"] = 2
    sample = session["samples"][0]
    sample["ms"] = [1.0] * 12
    sample["blocks"] = [[0, 0, 3], [0, 1, 3], [1, 0, 3], [1, 1, 3]]
    runs = chart_data(SessionModel.read(session))["samples"][0]["runs"]
    # step 0 compiles, 1-2 warm up, 3 is discarded, 4-6 the first block, 7 discarded, 8-10 ...
    assert runs == [[0, 4, 0, 3], [0, 8, 3, 3], [1, 4, 6, 3], [1, 8, 9, 3]]
    sample["blocks"] = []  # a session from before blocks were recorded: after the warm-up
    assert chart_data(SessionModel.read(session))["samples"][0]["runs"] == [[0, 3, 0, 12]]


HARNESS = r"""
const fs = require("fs");
const D = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const made = [];
function el(id) {
  return { id, clientWidth: 800, children: [], firstChild: null, className: "",
    appendChild(c) { this.children.push(c); }, removeChild() { this.firstChild = null; },
    insertBefore(c) { this.children.push(c); }, setAttribute() {}, addEventListener() {} };
}
const elements = {};
global.document = {
  getElementById(id) {
    if (id === "tcprof-data") return { textContent: JSON.stringify(D) };
    return elements[id] || (elements[id] = el(id));
  },
  documentElement: {},
  createElement: () => el(""),
  querySelector: (s) => (s === "#charts .controls" ? el("controls") : null),
  querySelectorAll: () => [],
};
global.getComputedStyle = () => ({ getPropertyValue: () => "" });
global.window = { addEventListener() {} };
global.devicePixelRatio = 1;
global.uPlot = function (opts, data, where) {
  this.opts = opts; this.data = data; this.where = where.id;
  this.scales = { x: { min: data[0][0], max: data[0][data[0].length - 1] } };
  this.destroy = () => {};
  this.setScale = (key, s) => {
    this.scales[key] = s;
    (opts.plugins || []).forEach((p) => (p.hooks.setScale || []).forEach((h) => h(this, key)));
  };
  made.push(this);
};
eval(fs.readFileSync(process.argv[3], "utf8"));
const charts = made.filter((u) => u.where !== "chart-scaling");
const out = charts.map((u) => ({
  id: u.where,
  first: u.data[0][0],
  last: u.data[0][u.data[0].length - 1],
  range: u.opts.scales.x.range(u, 5, 10),
  points: u.data.slice(1).map((c) => c.filter((v) => v != null).length),
}));
charts[0].setScale("x", { min: 100, max: 200 });  // a zoom on the step-time chart
out.push({ zoomed: charts.map((u) => [u.scales.x.min, u.scales.x.max]) });
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_script_draws_every_step_chart_over_the_shared_range(tmp_path):
    data = chart_data(SessionModel.read(_long_session()))
    (tmp_path / "data.json").write_text(json.dumps(data))
    (tmp_path / "harness.js").write_text(HARNESS)
    done = subprocess.run(
        [
            "node",
            str(tmp_path / "harness.js"),
            str(tmp_path / "data.json"),
            str(ASSETS / "report.js"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    *charts, zoom = json.loads(done.stdout)
    assert [c["id"] for c in charts] == ["chart-step-time", "chart-throughput", "chart-memory"]
    for chart in charts:
        assert (chart["first"], chart["last"]) == (0, 7003), chart["id"]
        assert chart["range"] == [0, 7003], chart["id"]
    assert charts[0]["points"] == [2 + 7000, 2 + 7000], "round 1: warm-up and its block"
    assert charts[2]["points"] == [4, 4]
    assert zoom["zoomed"] == [[100, 200]] * 3, "a zoom moves every step chart"


def test_the_loss_chart_has_ticks_and_joins_over_the_steps_a_script_skipped():
    """Each axis has round tick values (the loss at three or more, every step tick whole),
    and a curve with steps missing (None, NaN: skipped, or the discarded step before a block)
    is one unbroken line through its steps in order."""
    from html import escape

    from tcprof.profiler.report.sections.script import _svg, nice_ticks

    assert nice_ticks(0.4973, 3.01) == [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    assert nice_ticks(0, 59, most=8) == [0, 10, 20, 30, 40, 50]
    losses = [3.0 * 0.97**i for i in range(40)]
    skipped = [[i, None if i % 10 == 5 else v] for i, v in enumerate(losses)]
    skipped[7][1] = float("nan")
    svg = _svg([("eager", [[i, v] for i, v in enumerate(losses)]), ("parity run", skipped)], escape)
    y_ticks = re.findall(r'class="y-tick"[^>]*/><text[^>]*>([^<]+)</text>', svg)
    x_ticks = re.findall(r'class="x-tick"[^>]*/><text[^>]*>([^<]+)</text>', svg)
    assert len(y_ticks) >= 3 and all(float(t) for t in y_ticks)
    assert x_ticks == ["0", "5", "10", "15", "20", "25", "30", "35"]
    lines = re.findall(r'<polyline[^>]*stroke-dasharray="4 3" points="([^"]+)"', svg)
    assert len(lines) == 1, "the dashed parity curve is one line"
    xs = [float(p.split(",")[0]) for p in lines[0].split()]
    assert len(xs) == 40 - 4 - 1 and xs == sorted(xs)
