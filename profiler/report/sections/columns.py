"""The summary table's columns: which hold numbers, the speedup column's header (the level its
intervals were computed at) and what each column means (the window's tooltips, the reports'
notes)."""

from __future__ import annotations

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.stats import EQUIVALENCE_MARGIN, SETTLED_RATIO
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units

# Summary columns that hold numbers: reports right-align them.
NUMERIC_COLUMNS = frozenset(
    {
        "bs",
        "median ms",
        "p90 ms",
        "samples/s",
        "tokens/s",
        "steps/s",
        "per step",
        "compile s cold/warm",
        "break-even cold/warm",
        "tensor peak",
        "memory",
        "recompiles",
        "breaks",
    }
)

SPEEDUP = "speedup"  # the speedup column's key; its header states the intervals' level


def column_key(header: str) -> str:
    """A header's key in COLUMN_HELP and the views' tables: the speedup column's header
    varies with the level ('speedup [96.7% CI]'), its key does not."""
    return SPEEDUP if header.startswith(f"{SPEEDUP} [") else header


def speedup_header(model: SessionModel) -> str:
    """'speedup [95% CI]', or the level the intervals shown were computed at: simultaneous over
    the run's comparisons and adjusted for a run that stopped when settled ('speedup [96.7%
    CI]'). The compared rows' own level; with none (A/A controls alone), the run's."""
    levels = [
        r.speedup.level
        for r in model.rows
        if r.speedup and r.speedup.level is not None and r.control_of is None
    ]
    level = max(levels) if levels else stopping.level_of(thaw(model.config))
    return f"{SPEEDUP} [{units.percent(level, percent_digits(level))} CI]"


# What each column means, for tooltips (the app) and notes (the reports), by column_key.
COLUMN_HELP = {
    "arm": "the arm's label: a backend with its torch.compile options; the first arm is the "
    "baseline every other arm is measured against",
    "bs": "batch size: the rows of one batch size sit together, arm beside arm",
    "status": "ok: measured; stopped at 12/50: cut short after 12 of the 50 steps asked of "
    "each process (its figures, marked partial, are from fewer steps); error / oom: the "
    "arm failed at this batch size (after 2 steps, first step 14.37 s: what it ran before "
    "failing); fell back: dynamo gave up compiling and ran eagerly; "
    "(3/30 blocks contended): blocks during which other processes kept the machine busy, "
    "which slows their steps (rerun on a quieter machine)",
    "median ms": "median of the per-process medians (one process per arm per round)",
    "p90 ms": "90th percentile over all measured steps",
    "samples/s": "batch size / median step time; a script's: the samples its steps gave its "
    "model (the batch's leading dimension, every micro-batch summed) / median step time",
    "tokens/s": "a script's tokens per step (batch x sequence of the token ids its model is "
    "given, every micro-batch summed, padding counted) / median step time",
    "steps/s": "a script's optimizer steps per second of compute (1000 / median step time)",
    "per step": "a script's work per step as its model was given it (samples or tokens, every "
    "micro-batch summed): a script has no batch size of tcprof's",
    SPEEDUP: "the baseline's step time / the arm's: from 2+ rounds the geometric mean "
    "of the rounds' ratios of process medians, with the paired t interval around it (it covers "
    "process-to-process variation) at the level the header states (above 95% where the run "
    "stopped when settled, or made several comparisons); with several comparisons the "
    "intervals are simultaneous: all of them cover their truths together 95% of the time "
    "(Bonferroni, the family-wise level stated beside the verdict); 'not settled': the "
    f"interval's high end is over {SETTLED_RATIO:g} times its low end, too wide to quote its "
    "centre; one round has no interval",
    "verdict": "faster or slower: the interval shown excludes 1.0; "
    "within noise: the interval contains 1.0, or lies inside the bias band of a "
    f"flagged A/A control (one that fails equivalence within ±{units.percent(EQUIVALENCE_MARGIN)} "
    "and differs after Holm over the "
    "run's controls); '(not after Holm)', in sessions saved before simultaneous intervals: a "
    "difference the run's "
    "family-wise adjustment over all its comparisons does not keep; A/A rows: the control "
    "against its identical twin",
    "compile s cold/warm": "compile cost with an empty cache (cold) / with the cache the cold "
    "round left (warm): the time the arm's process spent compiling, every compile torch "
    "recorded (before training, in a step, in an evaluation); a session without compile events "
    "counts the first step's excess over a steady step, less eager's own; \"(torch's compile "
    'timer)": an arm that failed before any steady step has no excess to measure, so '
    "torch's own timer of its compiles stands in (a part of the cost)",
    "break-even cold/warm": "training steps until the compile cost is paid back by faster steps, "
    "at the speedup's family-wise level; 'within noise': the speedup's interval contains 1.0 (no "
    "payback where the speedup does not hold)",
    "tensor peak": "the training tensors' steady peak: CUDA max allocated over the measured "
    "steps; CPU: live tensor memory of a training step (torch.profiler profile_memory). Not "
    "the process's RSS (the memory plot on CPU), which also holds the compiler and its code",
    "memory": "the arm's tensor peak against the baseline's: +14% means its training tensors "
    "take 14% more memory than the baseline's, −8% 8% less; the tooltip adds the process's "
    "peak RSS and the compile's peak",
    "accuracy": "two untimed steps per batch size, in its own process: output, loss, every "
    "gradient, buffer and updated parameter against eager's after each step, a float64 run "
    "settling mismatches; two eager runs must agree first (else: nondeterministic)",
    "recompiles": "how many times dynamo compiled the model again at this batch size because a "
    "guard failed (a new shape or value; first round); each costs compile time",
    "breaks": "graph breaks at this batch size (first round): places where dynamo stopped "
    "tracing, split the model into several graphs and ran Python in between",
}


def percent_digits(fraction: float) -> int:
    """A percent's digits: none for a whole one (95%), one otherwise (97.0% is 0.9696)."""
    return 0 if round(fraction * 100, 6).is_integer() else 1
