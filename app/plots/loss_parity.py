"""Whether the arms' losses agree, said in the loss plot's title: where a compiled arm's loss
matches the baseline's, its curve is drawn over the baseline's and hides it, which reads as
"the baseline is missing" unless the plot says that the two agree, and by how much."""

from __future__ import annotations

import numpy as np

from tcprof.app.plots.series import Series

AGREE_SHARE = 0.01  # of the losses' span: closer than this, the curves draw as one line


def last_per_step(series: Series) -> tuple[np.ndarray, np.ndarray]:
    """The finite points, one per step (a step seen again in a later round: its last loss)."""
    x, y = series.data()
    finite = np.isfinite(y)
    x, y = x[finite], y[finite]
    steps, first_from_end = np.unique(x[::-1], return_index=True)
    return steps, y[::-1][first_from_end]


def loss_note(names: list[str], losses: list[Series]) -> str:
    """'eager and aot_eager agree within 0.0012' (the largest difference at a step both ran),
    or 'aot_eager differs from eager by up to 0.3'; '' with under two arms or no common step.
    The first arm is the baseline each other arm is compared with."""
    if len(losses) < 2:
        return ""
    base_x, base_y = last_per_step(losses[0])
    gaps: list[tuple[str, float]] = []  # each arm's largest difference at a step both ran
    every = [base_y]
    for name, series in zip(names[1:], losses[1:], strict=True):
        x, y = last_per_step(series)
        every.append(y)
        _steps, i, j = np.intersect1d(base_x, x, assume_unique=True, return_indices=True)
        if len(i):
            gaps.append((name, float(np.max(np.abs(base_y[i] - y[j])))))
    if not gaps:
        return ""
    values = np.concatenate(every)
    span = float(np.max(values) - np.min(values))
    close = [(name, gap) for name, gap in gaps if gap <= AGREE_SHARE * span]
    parts = []
    if close:
        worst = max(gap for _name, gap in close)
        within = "exactly" if worst == 0.0 else f"within {worst:.2g}"
        together = ", ".join(name for name, _gap in close)
        parts.append(f"{names[0]} and {together} agree {within}: one line")
    parts += [
        f"{name} differs from {names[0]} by up to {gap:.2g}"
        for name, gap in gaps
        if (name, gap) not in close
    ]
    return "; ".join(parts)
