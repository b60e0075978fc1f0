"""Prices from earlier sessions of the same model: what the estimate before Run is priced with
once the model has history (profiler/run/estimate.py prices a run; this reads the sessions).

Each session gives its rows' step times and cold and warm compiles, and the seconds per unit of
its own costs: its wall time less the compiles and steps its schedule priced. The median over
the newest HISTORY_RUNS sessions is the price.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from tcprof.profiler.protocol.types import Json
from tcprof.profiler.run.estimate import (
    HISTORY_RUNS,
    OVERHEAD_S_RANGE,
    Prices,
    nonnegative,
    plan,
)


def same_model(a: Json, b: Json) -> bool:
    """Two configs' sources name the same model: the same file and class or factory."""
    sa, sb = a.get("source") or {}, b.get("source") or {}
    if not sa.get("path") or sa.get("path") != sb.get("path"):
        return False
    return (sa.get("model"), sa.get("factory")) == (sb.get("model"), sb.get("factory"))


def prices_from(sessions: Iterable[Json], model: str = "") -> Prices:
    """Prices averaged over earlier sessions (newest first) of one model."""
    prices = Prices(model=model)
    tables: dict[str, dict[tuple[str, int], list[float]]] = {
        "compile_s": {},
        "warm_compile_s": {},
        "step_ms": {},
    }
    overheads: list[float] = []
    for session in sessions:
        own = _own_prices(session)
        if own is None:
            continue
        prices.runs += 1
        for name, table in tables.items():
            for key, value in getattr(own, name).items():
                table.setdefault(key, []).append(value)
        overhead = _overhead(session, own)
        if overhead is not None:
            overheads.append(overhead)
    for name, table in tables.items():
        setattr(prices, name, {k: sorted(v)[len(v) // 2] for k, v in table.items()})
    if overheads:
        prices.overhead_s = sorted(overheads)[len(overheads) // 2]
    return prices


def _own_prices(session: Json) -> Prices | None:
    """One session's measured prices; None when it measured nothing."""
    own = Prices(runs=1)
    for arm in session.get("arms") or []:
        if not isinstance(arm, dict):
            continue
        for key in dict.fromkeys((str(arm.get("name")), str(arm.get("backend")))):
            for row in arm.get("results") or []:
                bs = row.get("batch_size") if isinstance(row, dict) else None
                if not isinstance(bs, int) or bs <= 0:
                    continue
                step = nonnegative(row.get("median_ms"))
                if step is not None:
                    own.step_ms.setdefault((key, bs), step)
                cold = nonnegative(row.get("compile_cold_s"))
                cold = nonnegative(row.get("compile_s")) if cold is None else cold
                if cold is not None and arm.get("backend") != "eager":
                    own.compile_s.setdefault((key, bs), cold)
                warm = nonnegative(row.get("compile_warm_s"))
                if warm is not None and arm.get("backend") != "eager":
                    own.warm_compile_s.setdefault((key, bs), warm)
    return own if own.step_ms else None


def _overhead(session: Json, own: Prices) -> float | None:
    """Seconds per unit of the run's own costs (see PROCESS_WEIGHT): the session's wall time
    less its compiles and steps, over the units of the rounds it ran (a run that stopped when
    settled ran fewer than its config's most: priced at the most, a 4-round nanoGPT-shape run's
    unit came out a third too cheap and its next estimate ×0.67 of its wall time)."""
    start, end = nonnegative(session.get("started_at")), nonnegative(session.get("ended_at"))
    config = session.get("config") or {}
    if _ran_portable(session):  # sessions before --portable-round ran it with 3 or more rounds
        config = {**config, "portable_round": True}
    rounds = session.get("rounds")
    if isinstance(rounds, list) and rounds:  # a run that stopped when settled ran fewer
        config = {**config, "replicates": len(rounds)}
    if start is None or end is None or end <= start or session.get("status") != "completed":
        return None

    def total(overhead_s: float) -> float:
        prices = Prices(own.compile_s, own.warm_compile_s, own.step_ms, overhead_s=overhead_s)
        return sum(u.seconds for u in plan(config, prices))

    compute = total(0.0)
    weight = total(1.0) - compute
    if weight <= 0:
        return None
    low, high = OVERHEAD_S_RANGE
    return min(high, max(low, (end - start - compute) / weight))


def history_prices(
    config: Json,
    root: str | Path | None = None,
    read: Callable[[Path], Json] | None = None,
    limit: int = HISTORY_RUNS,
) -> Prices:
    """Prices from the newest `limit` sessions of the same model under root (default: the
    sessions folder). Sessions that cannot be read are passed over."""
    from tcprof.profiler.folders.files import EVENTS_JSONL, SESSION_JSON, iter_events, read_session
    from tcprof.profiler.folders.home import sessions_dir

    base = Path(root) if root is not None else sessions_dir()
    read = read or read_session
    try:
        folders = sorted(
            (f for f in base.iterdir() if (f / SESSION_JSON).is_file()),
            key=lambda f: f.stat().st_mtime,
            reverse=True,
        )
    except OSError:
        folders = []
    matched: list[Json] = []
    for folder in folders:
        if len(matched) >= limit:
            break
        try:
            first = next(iter_events(folder / EVENTS_JSONL), None)
        except (OSError, ValueError):
            first = None
        if first is None or not same_model(first.get("config") or {}, config):
            continue
        try:
            matched.append(read(folder / SESSION_JSON))
        except (OSError, ValueError):
            continue
    name = Path(str((config.get("source") or {}).get("path") or "?")).name
    return prices_from(matched, model=name)


def _ran_portable(session: Json) -> bool:
    """Whether any row of the session measured a portable round's compile."""
    return any(
        isinstance(row, dict) and nonnegative(row.get("compile_portable_s")) is not None
        for arm in session.get("arms") or []
        if isinstance(arm, dict)
        for row in arm.get("results") or []
    )
