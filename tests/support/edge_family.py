"""One run made by construction whose inductor speedup holds at 95% but not over the run's
three comparisons: the case where an unadjusted interval beside the adjusted verdict read
'1.03x faster [1.00-1.06] (not after Holm)'."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.support.simulated_family import family_session

# log ratios per round: t = 3.8 on 3 degrees of freedom, between t(0.975) = 3.18 and
# Bonferroni's t(1 - 0.05/6) = 4.86
EDGE_LOGS = np.array([0.03, 0.05, 0.01, 0.04])


def edge_session() -> dict[str, Any]:
    """eager; inductor at the edge; aot_eager 1.5x faster beyond doubt; cudagraphs the same."""
    shift = np.array([1.0, 1.1, 0.95, 1.02])
    eager = 10.0 * shift
    medians = np.stack(
        [
            eager,
            eager / np.exp(EDGE_LOGS),
            eager / 1.5 * np.array([1.0, 1.01, 0.99, 1.0]),
            eager * np.array([1.01, 0.99, 1.0, 1.0]),
        ]
    )[:, :, None]
    return family_session(medians)
