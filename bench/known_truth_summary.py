"""The known-truth benchmark's figures (bench/known_truth.py): coverage, bias and width of the
runs' intervals against their truth, the truth pooled over measurements, where the load landed,
and the summary of every run recorded in a JSON-lines file, per workload, condition and sitting.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

TWINS = {"eager-control": "eager", "repeat2-control": "repeat2"}


def pooled_truth(measurements: list[dict[str, float]]) -> dict[str, float]:
    """The truth over many short measurements: the turn-weighted mean log ratio, its 95% interval
    from the spread of the measurements' own means (drift between them counts), and what it
    would be were the work outside the graph free (r1 / (1 + r1))."""
    out: dict[str, float] = {}
    n = [m["turns"] for m in measurements]
    for name in ("repeat1", "repeat2"):
        means = [m[f"{name}_log_mean"] for m in measurements]
        centre = sum(w * x for w, x in zip(n, means, strict=True)) / sum(n)
        if len(means) > 1:
            half = _t975(len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
        else:
            half = 1.96 * measurements[0][f"{name}_log_sd"] / math.sqrt(n[0])
        out[name], out[f"{name}_half_pct"] = math.exp(centre), (math.exp(half) - 1) * 100
    out["graph_only"] = out["repeat1"] / (1 + out["repeat1"])
    out["measurements"], out["turns"] = len(measurements), sum(n)
    return out


def load_share(blocks: list[dict[str, Any]]) -> dict[str, float]:
    """Per arm, the share of its measured blocks that ran beside a busy neighbour (more than half
    a core busy elsewhere): were the load landing on one arm more than another, it shows here."""
    by: dict[str, list[bool]] = {}
    for b in blocks:
        by.setdefault(b["arm"], []).append(b["busy"] > 0.5)
    return {arm: sum(v) / len(v) for arm, v in by.items() if v}


def summarise(label: str, runs: list[dict[str, Any]], truth: float) -> list[str]:
    lines = [f"\n## {label}: {len(runs)} runs"]
    for name, true in (("repeat2", truth), ("eager-control", 1.0), ("repeat2-control", 1.0)):
        pairs = [r[name] for r in runs if r[name][0] is not None]
        covered = sum(ci[0] <= true <= ci[1] for _, ci in pairs)
        logs = [math.log(point / true) for point, _ in pairs]
        mean = statistics.fmean(logs)
        half = (
            _t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
            if len(logs) > 1
            else math.inf
        )
        widths = [(ci[1] / ci[0]) ** 0.5 - 1 for _, ci in pairs]
        lines.append(
            f"{name:16s} truth {true:.4f}: coverage {covered}/{len(pairs)} "
            f"({covered / len(pairs):.0%}); bias {_pct(math.exp(mean))} "
            f"[{_pct(math.exp(mean - half))}, {_pct(math.exp(mean + half))}]; "
            f"median half-width {statistics.median(widths) * 100:.1f}%"
        )
    shares: dict[str, list[float]] = {}
    for r in runs:
        for arm, share in load_share(r.get("blocks") or []).items():
            shares.setdefault(arm, []).append(share)
    if shares:
        lines.append(
            f"blocks beside a busy neighbour ({len(next(iter(shares.values())))} runs with "
            "blocks recorded): "
            + ", ".join(f"{arm} {statistics.fmean(v):.0%}" for arm, v in shares.items())
        )
    pooled: dict[int, list[float]] = {}
    for r in runs:
        for k, v in r["positions"].items():
            pooled.setdefault(k, []).extend(v)
    lines.append(
        "position effect (process median against the arm's run median): "
        + ", ".join(
            f"{k + 1}{'st' if k == 0 else 'nd' if k == 1 else 'rd' if k == 2 else 'th'} "
            f"{_pct(math.exp(statistics.fmean(v)))} (n={len(v)})"
            for k, v in sorted(pooled.items())
        )
    )
    return lines


SITTING_GAP_S = 600  # recorded runs further apart than this are another sitting


def sittings(group: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The runs of one benchmark invocation: recorded one after another, minutes apart."""
    out: list[list[dict[str, Any]]] = []
    last = None
    for line in group:
        at = time.mktime(time.strptime(line["at"], "%Y-%m-%dT%H:%M:%SZ"))
        if last is None or at - last > SITTING_GAP_S:
            out.append([])
        out[-1].append(line)
        last = at
    return out


def summarise_recorded(path: Path) -> list[str]:
    """The figures over every recorded run, per workload, condition and way of switching. This
    workload's runs are judged against the truth pooled over the measurements that followed the
    runs of their own sitting: the truth moves between sittings more than within one (0.501 to
    0.515 over five sittings, each to within ±0.3-1.3%), so a truth pooled over sittings would
    judge each sitting against another state's. The earlier wide workload's runs are judged against the truth measured
    before each (its `truth_blocks`). repeat2 is scaled by its truth so that `summarise`
    compares it with 1.0."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            line = json.loads(text)
            condition = line["condition"]
            if condition == "on":
                condition += f", {line.get('switching', 'fixed')}"
            by.setdefault((line.get("workload", "wide-3x384"), condition), []).append(line)
    lines = []
    for (workload, condition), group in by.items():
        truths: list[float] = []
        if "truth_after" in group[0]:
            truth = pooled_truth([line["truth_after"] for line in group])
            lines.append(f"\n{workload}, load {condition}: {pooled_line(truth)}")
            for sitting in sittings(group):
                own = pooled_truth([line["truth_after"] for line in sitting])
                lines.append(
                    f"  sitting of {sitting[0]['at']} ({len(sitting)} runs): repeat2's truth "
                    f"{own['repeat2']:.4f} ±{own['repeat2_half_pct']:.2f}%"
                )
                truths += [own["repeat2"]] * len(sitting)
        else:
            truths = [line.get("truth_blocks") or line["truth"] for line in group]
        runs = []
        for line, t in zip(group, truths, strict=True):
            point, (lo, hi) = line["repeat2"]
            runs.append(
                {
                    "repeat2": (point / t, (lo / t, hi / t)),
                    **{twin: tuple(line[twin]) for twin in TWINS},
                    "positions": {int(k): v for k, v in line["positions"].items()},
                    "blocks": line.get("blocks", []),
                }
            )
        label = (
            "quiet machine"
            if condition == "off"
            else f"a neighbour switched on and off ({condition.split(', ')[1]} stretches)"
        )
        lines += summarise(f"{workload}, {label} (repeat2 as a ratio to its truth)", runs, 1.0)
    return lines


def pooled_line(truth: dict[str, float]) -> str:
    return (
        f"truth pooled over {truth['measurements']} measurements ({truth['turns']} turns): "
        f"repeat2 {truth['repeat2']:.4f} ±{truth['repeat2_half_pct']:.2f}%, repeat1 "
        f"{truth['repeat1']:.4f} ±{truth['repeat1_half_pct']:.2f}% (graph work alone would give "
        f"{truth['graph_only']:.4f})"
    )


def _pct(ratio: float) -> str:
    return f"{(ratio - 1) * 100:+.1f}%"


def _t975(df: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.975))
