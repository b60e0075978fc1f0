"""A series of sessions over time (`tcprof history`): one row per session and batch size, the
changes between consecutive sessions that both rules call real, and an offline HTML page.

The change rule (docs/history.md): between two consecutive sessions of a series, an arm's
speedup has changed when (1) compare's interval says so: the 95% interval of the difference of
the two paired mean log speedups, with their combined standard error, excludes no change; and
(2) the change is larger than the series itself moves between sessions: |Δ log speedup| above
c times the between-session standard deviation of a difference, estimated from the series'
consecutive differences as their median |Δ| / 0.6745 (a robust estimate, so the one step being
judged does not hide itself by widening it), where c is calibrated (analysis/spread_rule.py) so
that a whole series of n sessions with no change flags one with a FAMILY_ERROR chance (3.6 for
6 sessions, 3.8 for 200), so a long series does not flag its own noise. A series of fewer than
MIN_SPREAD differences has no spread to judge against, and says so. The session where a change
first appeared is named; a torch or machine change between the two is named beside it.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis.spread_rule import NORMAL_MAD, spread_critical
from tcprof.profiler.folders.index import IndexEntry
from tcprof.profiler.model.row import Row
from tcprof.profiler.protocol import units
from tcprof.profiler.report.changes import (
    BETTER,
    WORSE,
    log_speedup,
    speedup_change,
    speedup_direction,
)
from tcprof.profiler.report.data import script_json
from tcprof.profiler.report.html import CSP, VENDOR, _resource, esc
from tcprof.profiler.report.sections.cells import fmt_accuracy, fmt_speedup, training_mb
from tcprof.profiler.report.sections.table import render_table

FAMILY_ERROR = 0.05  # the chance that a series with no change flags one
MIN_SPREAD = 3  # consecutive differences needed to estimate the series' own spread


@dataclass
class Change:
    """One flagged change: an arm's speedup at a batch size, from one session to the next."""

    arm: str
    batch_size: int
    before: IndexEntry
    after: IndexEntry
    row_before: Row
    row_after: Row
    direction: str
    log_change: float
    spread: float | None

    def text(self) -> str:
        verb = "rose" if self.direction == BETTER else "fell"
        bs = f" (bs {self.batch_size})" if self.batch_size is not None else ""
        return (
            f"{self.arm}'s speedup{bs} {verb} from {speedup_text(self.row_before)} to "
            f"{speedup_text(self.row_after)} at {commit_text(self.after)} "
            f"({beside(self.before, self.after, self.arm)})"
        )


@dataclass
class History:
    key: str
    text: str
    entries: list[IndexEntry]
    arms: list[str]
    baseline: str | None
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# ---- picking a series ------------------------------------------------------------------------


Entries = Sequence[IndexEntry | Mapping[str, Any]]  # the index's entries, typed or as loaded


def _typed(entries: Entries) -> list[IndexEntry]:
    return [IndexEntry.read(e) for e in entries]


def series_counts(entries: Entries) -> list[tuple[str, str, int]]:
    """(key, text, sessions) of every series found, the largest first."""
    counts: dict[str, tuple[str, int]] = {}
    for e in _typed(entries):
        if e.series:
            text, n = counts.get(e.series, (e.series_text or e.series, 0))
            counts[e.series] = (text, n + 1)
    return sorted(((k, t, n) for k, (t, n) in counts.items()), key=lambda x: (-x[2], x[1]))


def matches(series_file: str | None, target: str) -> bool:
    """Does a series' file (relative to its repository, or absolute) name `target`? The same
    path, or one ends with the other at a folder boundary (`model.py`, `models/model.py`)."""
    if not series_file:
        return False
    a = Path(series_file).as_posix().lstrip("./")
    b = Path(target).as_posix()
    b_abs = Path(target).absolute().as_posix()
    return any(x == y or x.endswith("/" + y) for x, y in ((b_abs, a), (a, b.lstrip("./"))))


def series_for(entries: Entries, target: str) -> list[str]:
    """The keys of the series whose file is `target`, the largest first."""
    typed = _typed(entries)
    keys = {e.series for e in typed if e.series and matches(e.series_file, target)}
    return [k for k, _t, _n in series_counts(typed) if k in keys]


# ---- a series and its changes ----------------------------------------------------------------


def build_history(entries: Entries, key: str) -> History:
    """The sessions of series `key`, oldest first, and the changes between them."""
    mine = [e for e in _typed(entries) if e.series == key]
    arms: list[str] = []
    for e in mine:
        arms += [a.name for a in e.arms if a.name is not None and a.name not in arms]
    baseline = mine[-1].baseline if mine else None
    text = (mine[-1].series_text if mine else None) or key
    history = History(key, text, mine, arms, baseline)
    for arm in arms:
        if arm == baseline:
            continue
        sizes = sorted({bs for e in mine for bs in e.rows(arm)}, key=str)
        for bs in sizes:
            history.changes += _arm_changes(mine, arm, bs, history.notes)
    history.changes.sort(key=lambda c: mine.index(c.after))
    return history


def _log(entry: IndexEntry, arm: str, bs: int) -> tuple[float, float, int] | None:
    row = entry.rows(arm).get(bs)
    base = entry.rows(entry.baseline or "").get(bs)
    return log_speedup(row, base) if row else None


def series_spread(logs: list[float]) -> float | None:
    """The standard deviation of a difference between consecutive sessions, from the series'
    own consecutive differences (median |Δ| / 0.6745); None with fewer than MIN_SPREAD."""
    diffs = [abs(b - a) for a, b in zip(logs, logs[1:], strict=False)]
    if len(diffs) < MIN_SPREAD:
        return None
    return statistics.median(diffs) / NORMAL_MAD


def spread_z(sessions: int) -> float:
    """How many between-session SDs a change must exceed in a series of `sessions`: the
    studentized maximum's quantile for the robust spread, not the normal one (which treats the
    spread as known and flags about one no-change series in ten; docs/history.md)."""
    return spread_critical(sessions, FAMILY_ERROR)


def _arm_changes(entries: list[IndexEntry], arm: str, bs: int, notes: list[str]) -> list[Change]:
    measured = [(e, _log(e, arm, bs)) for e in entries]
    pairs = [(e, m) for e, m in measured if m is not None]
    spread = series_spread([m[0] for _e, m in pairs])
    if spread is None and len(pairs) >= 2:
        notes.append(
            f"{arm} bs {bs}: {len(pairs)} sessions with an interval are too few to know the "
            "series' own spread; changes are judged by their intervals alone"
        )
    out = []
    for (eb, mb), (ea, ma) in zip(pairs, pairs[1:], strict=False):
        _c, interval = speedup_change(mb, ma)
        direction = speedup_direction(interval)
        if direction not in (BETTER, WORSE):
            continue
        delta = ma[0] - mb[0]
        if spread is not None and abs(delta) <= spread_z(len(pairs)) * spread:
            continue
        rb, ra = eb.rows(arm)[bs], ea.rows(arm)[bs]
        out.append(Change(arm, bs, eb, ea, rb, ra, direction, delta, spread))
    return out


# ---- words -----------------------------------------------------------------------------------


def speedup_text(row: Row) -> str:
    return fmt_speedup(row)


def commit_text(entry: IndexEntry | Mapping[str, Any]) -> str:
    """'3f2a1c9', '3f2a1c9+' when the tree was dirty, or the session's folder without a commit."""
    e = IndexEntry.read(entry)
    if not e.short:
        return f"session {e.folder}"
    return f"{e.short}+" if e.dirty else e.short


def _arm_torch(entry: IndexEntry, arm: str) -> str | None:
    found = entry.arm(arm)
    return found.torch if found and found.torch else entry.torch


def beside(before: IndexEntry, after: IndexEntry, arm: str) -> str:
    """What else changed between two sessions: torch (the arm's own) and the machine."""
    tb, ta = _arm_torch(before, arm), _arm_torch(after, arm)
    words = [f"torch {tb} → {ta}" if tb != ta else "torch unchanged"]
    db, da = before.device_name, after.device_name
    if db != da:
        words.append(f"machine changed: {db or '?'} → {da or '?'}")
    return "; ".join(words)


def date_text(entry: IndexEntry | Mapping[str, Any]) -> str:
    started = IndexEntry.read(entry).started_at
    if not isinstance(started, (int, float)) or not math.isfinite(started):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(started))


def _cold(row: Row | None) -> float | None:
    """The cold compile (a session of schema 1 has one figure, compile_s)."""
    cost = row.compile if row else None
    if cost is None:
        return None
    return cost.first_s if cost.cold_s is None else cost.cold_s


def _warm(row: Row | None) -> float | None:
    return row.compile.warm_s if row and row.compile else None


def _compile(row: Row | None) -> str:
    if not row:
        return "-"
    return f"{units.seconds(_cold(row), unit=False)}/{units.seconds(_warm(row), unit=False)}"


def table(history: History) -> str:
    """One row per session and batch size."""
    return render_table(*table_cells(history))


def table_cells(history: History) -> tuple[list[str], list[list[str]]]:
    """The table's header and one row of cells per session and batch size (the terminal's and
    the window's History view's)."""
    compiled = [a for a in history.arms if a != history.baseline]
    header = ["date", "commit", "torch", "bs"]
    header += [f"{a} ms" for a in history.arms]
    for a in compiled:
        header += [f"{a} speedup", f"{a} compile s cold/warm", f"{a} accuracy"]
    header += [f"{a} memory" for a in history.arms]
    rows = []
    for e in history.entries:
        sizes = sorted({bs for a in history.arms for bs in e.rows(a)}, key=str)
        for bs in sizes:
            by_arm = {a: e.rows(a).get(bs) for a in history.arms}
            cells = [date_text(e), commit_text(e), e.torch or "-", str(bs)]
            cells += [units.ms(r.median_ms if r else None, unit=False) for r in by_arm.values()]
            for a in compiled:
                r = by_arm[a]
                accuracy = fmt_accuracy(r) if r else "-"
                cells += [speedup_text(r) if r else "-", _compile(r), accuracy]
            cells += [units.megabytes(training_mb(r) if r else None) for r in by_arm.values()]
            rows.append(cells)
    return header, rows


RULE_TEXT = (
    "a change is flagged when compare's 95% interval of the change in paired log speedup "
    "excludes no change AND |Δ log speedup| exceeds z × the series' own between-session SD of a "
    "difference (median |Δ| of consecutive sessions / 0.6745), z calibrated so that a series "
    "with no change flags one in 5% of series, whatever its length"
)


def render_text(history: History) -> str:
    lines = [f"series {history.key}: {history.text} ({len(history.entries)} sessions)", ""]
    lines += [table(history), ""]
    if history.changes:
        lines += [f"changed: {c.text()}" for c in history.changes]
    else:
        lines.append("no change beyond noise between consecutive sessions")
    lines += [f"note: {n}" for n in history.notes]
    lines.append(f"rule: {RULE_TEXT}")
    return "\n".join(lines)


def render_list(entries: Entries) -> str:
    counts = series_counts(entries)
    rows = [[k, str(n), t] for k, t, n in counts]
    return render_table(["series", "sessions", "what"], rows)


# ---- the HTML page ---------------------------------------------------------------------------


def chart_data(history: History) -> dict[str, Any]:  # the page's JSON and the window's charts
    """Per session: its label and hover text; per arm and batch size: each figure's points."""
    sessions = [
        {"commit": commit_text(e), "torch": e.torch or "-", "date": date_text(e)}
        for e in history.entries
    ]
    lines = []
    for arm in history.arms:
        sizes = sorted({bs for e in history.entries for bs in e.rows(arm)}, key=str)
        for bs in sizes:
            rows = [e.rows(arm).get(bs) for e in history.entries]
            speedups = [r.speedup if r else None for r in rows]
            ci = [s.interval if s else None for s in speedups]
            lines.append(
                {
                    "arm": arm,
                    "bs": bs,
                    "compiled": arm != history.baseline,
                    "speedup": [s.value if s else None for s in speedups],
                    "low": [c.low if c else None for c in ci],
                    "high": [c.high if c else None for c in ci],
                    "ms": [r.median_ms if r else None for r in rows],
                    "cold": [_cold(r) for r in rows],
                    "warm": [_warm(r) for r in rows],
                    "memory": [training_mb(r) if r else None for r in rows],
                }
            )
    return {"sessions": sessions, "lines": lines}


_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById('tcprof-history').textContent);
  var s = data.sessions, xs = s.map(function (_, i) { return i; });
  var colours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];
  var hover = document.getElementById('hover');
  function chart(id, title, field, compiledOnly, band) {
    var lines = data.lines.filter(function (l) { return !compiledOnly || l.compiled; });
    var series = [{}], values = [xs];
    lines.forEach(function (l, i) {
      var c = colours[i % colours.length];
      series.push({label: l.arm + ' bs ' + l.bs, stroke: c, width: 2, points: {show: true, size: 7}});
      values.push(l[field]);
      if (band) {
        series.push({label: l.arm + ' low', stroke: c, dash: [4, 4], width: 1});
        values.push(l.low);
        series.push({label: l.arm + ' high', stroke: c, dash: [4, 4], width: 1});
        values.push(l.high);
      }
    });
    var el = document.getElementById(id);
    new uPlot({
      title: title, width: 760, height: 260, series: series,
      scales: {x: {time: false}},
      axes: [{values: function (u, v) { return v.map(function (i) {
        return Number.isInteger(i) && s[i] ? s[i].commit : ''; }); }}, {}],
      hooks: {setCursor: [function (u) {
        var i = u.cursor.idx;
        if (i != null && s[i]) {
          hover.textContent = 'commit ' + s[i].commit + ' · torch ' + s[i].torch + ' · ' + s[i].date;
        }
      }]}
    }, values, el);
  }
  chart('chart-speedup', 'Speedup (dashed: 95% interval)', 'speedup', true, true);
  chart('chart-cold', 'Compile cost, cold (s)', 'cold', true, false);
  chart('chart-warm', 'Compile cost, warm (s)', 'warm', true, false);
  chart('chart-ms', 'Median step time (ms)', 'ms', false, false);
  chart('chart-memory', 'Training memory (MB)', 'memory', false, false);
})();
"""


def render_html(history: History) -> str:
    """One self-contained page: the table, the changes and the charts (no network)."""
    css = _resource(VENDOR / "uPlot.min.css")
    js_lib = _resource(VENDOR / "uPlot.iife.min.js")
    changes = "".join(f"<li>{esc(c.text())}</li>" for c in history.changes) or (
        "<li>no change beyond noise between consecutive sessions</li>"
    )
    charts = "".join(
        f'<div id="{i}"></div>'
        for i in ("chart-speedup", "chart-cold", "chart-warm", "chart-ms", "chart-memory")
    )
    title = f"tcprof history: {history.text}"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{esc(title)}</title>\n<style>\n{css}\n"
        "body{font-family:sans-serif;margin:1.5em}pre{font-size:12px}#hover{min-height:1.4em}"
        "\n</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<p>series {esc(history.key)} · {len(history.entries)} sessions</p>\n"
        f"<h2>Changes</h2><ul>{changes}</ul><p>{esc(RULE_TEXT)}</p>\n"
        f'<h2>Charts</h2><p id="hover"></p>{charts}\n'
        "<noscript><p>The charts need JavaScript; the table below does not.</p></noscript>\n"
        f"<h2>Sessions</h2><pre>{esc(table(history))}</pre>\n"
        f'<script type="application/json" id="tcprof-history">{script_json(chart_data(history))}'
        "</script>\n"
        f"<script>\n{js_lib}\n</script>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )
