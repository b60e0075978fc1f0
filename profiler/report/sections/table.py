"""The summary table (arm x batch size) as text cells, its formatters, column help and the
method notes: shared by the terminal, the Markdown and HTML reports and the window."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.schedule import SavedSchedule
from tcprof.profiler.analysis.stats import EQUIVALENCE_MARGIN, SETTLED_RATIO
from tcprof.profiler.analysis.verdict import NOT_AFTER_HOLM
from tcprof.profiler.analysis.verdict import bound_text as bound_text  # the views' import
from tcprof.profiler.config import DEFAULT_REPLICATES, balanced_rounds, threads_per_process
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.figures import Interval
from tcprof.profiler.model.json_values import thaw
from tcprof.profiler.model.row import Accuracy, Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import FELL_BACK
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections.seeding import seeding_notes


def fmt_speedup(row: Row) -> str:
    """'1.21x [1.17-1.28]' for a settled speedup; 'not settled [0.55-43.92]' for one whose
    interval is too wide to act on (analysis.stats.settled), and 'not settled (one round: no
    interval)' for a single round: the model's Speedup says it, one rule for every view."""
    speedup = row.speedup
    return "-" if speedup is None else str(speedup)


def fmt_accuracy(row: Row) -> str:
    acc = row.accuracy
    return "-" if acc is None else acc.status


def _err(value: Any) -> str:
    """An error size; None is one JSON could not hold (infinite: the tensors did not compare)."""
    return f"{value:.3g}" if isinstance(value, (int, float)) else "not finite"


def accuracy_title(acc: Accuracy) -> str:
    """The accuracy verdict's detail: the worst tensor and why (schema 1: loss and grad norm).
    The worst tensor is kept raw (model/raw.py), and so is a schema 1 check's four figures."""
    saved = acc.data  # schema 1's four figures, as saved
    if "worst" not in saved:
        return (
            f"loss {saved.get('loss')} vs {saved.get('baseline_loss')}; grad norm "
            f"{saved.get('grad_norm')} vs {saved.get('baseline_grad_norm')}"
        )
    worst = acc.worst or {}
    text = acc.reason or ""
    if worst:
        text = (
            f"worst: {worst.get('name')} (max abs err {_err(worst.get('max_abs_err'))}, "
            f"max rel err {_err(worst.get('max_rel_err'))}). {text}"
        )
    return str(text).strip()


VERDICT_TEXT = {
    "faster": "faster",
    "slower": "slower",
    "no_difference": "within noise",
    "no_interval": "one round",
    "unknown": "-",
}


def _holds(row: Row) -> bool:
    """False for a faster or slower verdict that the family-wise adjustment does not keep."""
    held = row.speedup.holds_after_adjustment if row.speedup else None
    return not (held is False and row.interval_verdict in ("faster", "slower"))


def _one_round(row: Row) -> bool:
    """A speedup from a single round (analysis.verdict.one_round, on the typed row)."""
    speedup = row.speedup
    return speedup is not None and (
        speedup.covers_processes is False or row.interval_verdict == "no_interval"
    )


def fmt_verdict(row: Row) -> str:
    """'faster'; 'faster (not after Holm)' when the run's family-wise adjustment does not keep
    it; an A/A control's row: 'A/A ok' or 'A/A +4%' (flagged: the harness is biased)."""
    r = row
    if r.control_of:
        speedup = r.speedup
        if speedup and speedup.control_flagged and r.control_speedup is not None:
            return f"A/A {units.change(r.control_speedup - 1)} (flagged)"
        return "A/A ok" if speedup and speedup.control_interval else "-"
    verdict = "no_interval" if _one_round(r) else r.interval_verdict or "unknown"
    text = VERDICT_TEXT.get(verdict, "-")
    if not _holds(r):
        text += f" ({NOT_AFTER_HOLM})"
    return text


TIMER_STANDS_IN = "torch's compile timer"


def _compile_seconds(value: float | None) -> str:
    return units.seconds(value, unit=False)


def fmt_compile(row: Row) -> str:
    """'cold / warm' seconds; a session of schema 1 has one figure (compile_s); an arm that
    failed before a steady step: '4.67 (torch's compile timer)', the figure that stands in."""
    cost = row.compile
    if cost is None:
        return units.seconds(None, unit=False)
    if cost.cold_s is None and cost.warm_s is None:
        if cost.first_s is None and cost.timer_s is not None:
            return f"{units.seconds(cost.timer_s, unit=False)} ({TIMER_STANDS_IN})"
        return units.seconds(cost.first_s, unit=False)
    if cost.warm_s is None:
        return _compile_seconds(cost.cold_s)
    return f"{_compile_seconds(cost.cold_s)} / {_compile_seconds(cost.warm_s)}"


def _steps(value: float | None, ci: Interval | None = None) -> str:
    """'14,100 [9,800–25k]': break-even steps with their interval; 'never' where none comes."""
    if value is None:
        return "never"
    if ci is None or ci.low is None:
        return units.count(value)
    high = "never" if ci.high is None else units.short_count(ci.high)
    return f"{units.count(value)} [{units.short_count(ci.low)}–{high}]"


def fmt_break_even(row: Row, is_baseline: bool) -> str:
    """'14,100 [9,800–25k] / 1,200 [800–2,100]' (cold / warm, each with its interval from the
    speedup's); 'within noise' where the speedup's interval contains 1.0; 'never' if slower."""
    r = row
    cost = r.compile
    if is_baseline or cost is None or cost.first_s is None or r.speedup is None:
        return "-"  # no speedup (an arm or its baseline failed): nothing to pay back with
    if not _holds(r):
        return "within noise"  # a difference the family-wise adjustment does not keep
    cold_and_warm = "break_even_cold_steps" in r.data  # schema 1 saved one break-even
    if r.interval_verdict == "no_difference" and cold_and_warm:
        return "within noise"
    if _one_round(r):
        return "no interval"  # a break-even from one round's speedup would claim what it lacks
    if not cold_and_warm:
        return _steps(cost.break_even_steps)
    cold = cost.cold_s is not None
    text = _steps(cost.break_even_steps if cold else None, cost.break_even if cold else None)
    if cost.warm_s is None:
        return text
    return f"{text} / {_steps(cost.warm_break_even_steps, cost.warm_break_even)}"


def failed_status(row: Row) -> str:
    """'error after 2 steps (first step 14.37 s)': a failed row keeps what it ran before
    failing; the steps when the worker counted them, the first step when it was timed."""
    r = row
    status = status_of(r)
    if r.status not in ("error", "oom"):
        return status
    steps = r.error.steps_run if r.error else None
    if steps is not None and steps > 0:
        status += f" after {steps} step{'s' if steps != 1 else ''}"
    if r.first_step_ms is not None:
        status += f" (first step {units.seconds(r.first_step_ms / 1000)})"
    return status


def status_of(row: Row) -> str:
    """The row's status as every view shows it: 'stopped at 12/50' for a partial row
    (analysis.verdict.status_text, on the typed row)."""
    if not row.partial:
        return row.status
    fraction = f"{row.steps_measured or 0}/{row.steps_planned or '?'}"
    return f"{'stopped' if row.status == 'ok' else row.status} at {fraction}"


def _partial(text: str, row: Row) -> str:
    """'12.30' -> '12.30 (partial)' for a partial row's figures; '-' stays '-'."""
    return f"{text} (partial)" if row.partial and text != "-" else text


def training_mb(row: Row) -> float | None:
    """The steady training peak (schema 2); schema 1 sessions only have peak RSS/CUDA."""
    r = row
    if "steady_peak_mb" in r.data:  # schema 2 saves it, null where it was not measured
        return r.memory.steady_peak_mb
    return r.memory.peak_cuda_mb or r.memory.peak_rss_mb


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
    return f"{SPEEDUP} [{units.percent(level, _digits(level))} CI]"


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


def batch_size_order(model: SessionModel) -> list[int]:
    """The batch sizes in the order the run was asked for, then any others measured."""
    asked = list(model.batch_sizes)
    seen = [r.batch_size for r in model.rows]
    order = [b for b in asked if b in seen]
    return order + sorted({b for b in seen if b not in order})


def summary_rows(model: SessionModel) -> list[tuple[int, Arm, Row]]:
    """(arm index, arm, row) for every Summary row: grouped by batch size, the arms side by
    side in their order within each size (the table, the app and the reports share it)."""
    arms = list(enumerate(model.arms))
    return [
        (i, arm, row)
        for bs in batch_size_order(model)
        for i, arm in arms
        for row in arm.rows
        if row.batch_size == bs
    ]


def summary_results(
    model: SessionModel,
) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """summary_rows as session.json holds them (a copy), for the readers still on dicts."""
    return [(i, thaw(arm.data), thaw(row.data)) for i, arm, row in summary_rows(model)]


def _script(model: SessionModel) -> ScriptSource | None:
    """The script's options (None: a model file's session)."""
    return script_section.script_of(model)


def table_rows(model: SessionModel) -> tuple[list[str], list[list[str]]]:
    header = [
        "arm",
        "bs",
        "status",
        "median ms",
        "p90 ms",
        "samples/s",
        speedup_header(model),
        "verdict",
        "compile s cold/warm",
        "break-even cold/warm",
        "tensor peak",
        "memory",
        "accuracy",
        "recompiles",
        "breaks",
    ]
    script = _script(model)
    unit = script_section.work_unit(model)
    if script is not None:  # its own unit; no batch size of tcprof's unless it sweeps one
        header[5] = f"{unit}/s"
        if not script.sweep:
            header[1] = "per step"
    rows = []
    for arm_index, arm, r in summary_rows(model):
        status = failed_status(r)  # "stopped at 12/50": its figures are marked partial
        status += contention_text(r)
        if r.fell_back:
            status += f" ({FELL_BACK})"
        elif r.compiled_while_measuring:
            status += " (recompiled while measuring)"
        change = r.memory.change
        rows.append(
            [
                arm.name,
                _phase_cell(script, r, unit),
                status,
                _partial(units.ms(r.median_ms, unit=False), r),
                units.ms(r.p90_ms, unit=False),
                _throughput_cell(script, r),
                _partial(fmt_speedup(r), r) if arm_index else "baseline",
                _partial(fmt_verdict(r), r) if arm_index else "-",
                fmt_compile(r),
                fmt_break_even(r, arm_index == 0),
                units.megabytes(training_mb(r)),
                ("-" if change is None else units.change(change)) if arm_index else "-",
                fmt_accuracy(r) if arm_index else "-",
                str(r.recompiles),
                str(r.graph_breaks),
            ]
        )
    return header, rows


def _phase_cell(script: ScriptSource | None, row: Row, unit: str) -> str:
    """The batch size; a script's phase value, or without a sweep its work per step."""
    if script is not None and not script.sweep:
        return script_section.work_text(row, unit)
    return str(row.batch_size)


def _throughput_cell(script: ScriptSource | None, row: Row) -> str:
    if script is None:
        return units.count(row.samples_per_s)
    return units.rate(row.script.work_per_s if row.script else None)


def steps_text(model: SessionModel) -> str:
    """'1 first step + 5 warm-up + 50 asked per process (5 blocks of 10); measured 5,744–8,292
    per process: each block runs at least 100 ms': the steps a process really measured, and
    why a block grew, beside what was asked."""
    options = model.options
    steps, blocks = options.steps, options.blocks
    text = f"1 first step + {options.warmup} warm-up + {steps} measured asked per process"
    script = _script(model)
    if script:
        text = (
            f"the script's {_script_unit(script)}: " + text + " (one discarded before each block)"
        )
    if steps is not None and blocks is not None and blocks > 1:
        text += f" ({blocks} blocks of about {max(1, steps // blocks)})"
    counts = [n for r in model.rows for n in r.steps_per_process]
    if not counts:
        return text
    low, high = min(counts), max(counts)
    measured = units.count(low) if low == high else f"{units.count(low)}–{units.count(high)}"
    text += f"; measured {measured} per process"
    min_block = options.min_block_ms
    if steps is not None and high > steps and min_block is not None:
        text += f": each block runs at least {units.ms(min_block)}, so short steps run more of them"
    return text


def _script_unit(script: ScriptSource) -> str:
    return "forward calls" if script.step_on == "forward" else "optimizer steps"


def tolerance_text(model: SessionModel) -> str:
    """'rtol 0.0001, atol 1e-05 (the dtype's default)': the tolerance the accuracy check used,
    not the unset option ('rtol=None')."""
    used = next(
        (r.accuracy for r in model.rows if r.accuracy and r.accuracy.rtol is not None), None
    )
    rtol, atol = model.options.accuracy_rtol, model.options.accuracy_atol
    default = rtol is None and atol is None
    rtol = used.rtol if rtol is None and used else rtol
    atol = used.atol if atol is None and used else atol
    if rtol is None and atol is None:
        return "the dtype's default (no accuracy check ran)"
    return f"rtol {rtol:g}, atol {atol:g}" + (" (the dtype's default)" if default else "")


def contention_text(row: Row) -> str:
    """' (3/30 blocks contended)': blocks a neighbour slowed (the machine busy elsewhere while
    they ran, or the run's other processes busy when they began); empty when none was."""
    r = row
    if not r.blocks_contended:
        return ""
    return f" ({r.blocks_contended}/{r.blocks_measured or '?'} blocks contended)"


def render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _threads_text(model: SessionModel) -> str:
    """', 2 threads per arm'; a distributed arm's processes are its ranks, which share the
    host's cores: ', 1 thread per rank (2 ranks per node)' (as the runner divides them)."""
    threads = model.options.threads
    if threads is None or threads < 1:
        return ""
    worlds = [a.world_size or 1 for a in model.arms]
    nproc = model.options.nproc if model.options.nproc is not None else 1
    if not any(w > 1 for w in worlds) or nproc < 1:
        return f", {threads} threads per arm"
    per_rank = threads_per_process(threads, nproc)
    ranks = f"{per_rank} thread{'s' if per_rank != 1 else ''} per rank"
    if all(w > 1 for w in worlds):
        return f", {ranks} ({nproc} ranks per node)"
    return f", {threads} threads per arm, {ranks} of a distributed arm ({nproc} ranks per node)"


def _rounds_chosen(schedule: SavedSchedule) -> str:
    """Why a balanced run has the rounds it has, where it is the default's count."""
    arms, rounds = schedule.arms, schedule.rounds
    if not schedule.balanced or arms < 2 or rounds != balanced_rounds(arms):
        return ""
    return (
        f"; {rounds} rounds, the fewest of at least {DEFAULT_REPLICATES} that balance {arms} arms"
    )


def _digits(fraction: float) -> int:
    """A percent's digits: none for a whole one (95%), one otherwise (97.0% is 0.9696)."""
    return 0 if round(fraction * 100, 6).is_integer() else 1


def method_notes(model: SessionModel) -> list[str]:
    """How the figures were measured, in plain sentences (the CLI, report.md and report.html)."""
    options = model.options
    rows = model.rows
    notes: list[str] = []
    version = model.schema_version or 1
    if version < 2:
        notes.append(
            "measured by the old method (session schema 1): one process per arm, a speedup "
            "interval over steps only, compile time without cold/warm, peak RSS as memory, and "
            "an accuracy check of first-step loss and gradient norm"
        )
        return notes
    reps = max((r.replicates for r in rows), default=0)
    methods = {r.speedup.method for r in rows if r.speedup} - {None}
    threads = _threads_text(model)
    stopped = stopping.stop_text(model.stopping)
    level = (model.stopping.level if model.stopping else None) or 0.95
    if reps >= 2 and version >= 3:
        notes.append(
            f"speedup: the geometric mean over {reps} rounds of fresh processes{threads} of each "
            f"round's ratio of process medians, with its paired t {units.percent(level, _digits(level))} "
            "interval (centre and width from the same pairs, covering process-to-process "
            "variation)"
        )
    if stopped:
        notes.append(f"rounds: {stopped}")
    elif reps >= 2:
        how = (
            "paired t interval" if methods == {"paired_t"} else "hierarchical bootstrap"
        ) + " over rounds"
        notes.append(
            f"speedup: median of {reps} process medians per arm ({reps} rounds of fresh "
            f"processes{threads}); 95% interval by {how} (measured by session schema "
            f"{version}'s method)"
        )
    elif rows:
        notes.append(
            f"speedup: one process per arm{threads}: one round has no interval (a bootstrap of "
            "one process's steps leaves process-to-process variation out, so it is not shown as "
            "one); run 3 or more rounds: --replicates"
        )
    if reps >= 2 and version >= 3:
        notes.append(
            f"a speedup is settled, and quoted as a figure, when its interval's high end is at "
            f"most {SETTLED_RATIO:g} times its low end; a wider one reads 'not settled'"
        )
    schedule = SavedSchedule.of(model.data.get("schedule"))  # kept raw: model/raw.py
    if schedule.design == "williams" and reps >= 2:
        notes.append(
            "order: a Williams design over the rounds (each arm in each position, and right "
            "after each other arm, equally often"
            + (
                (_rounds_chosen(schedule) if not stopped else "")
                if schedule.balanced
                else f"; not balanced with {reps} rounds"
            )
            + ")"
        )
    if reps >= 2:
        notes += seeding_notes(model)
    controls = [a.name for a in model.arms if a.control_of is not None]
    if controls:
        notes.append(
            f"A/A control{'s' if len(controls) > 1 else ''}: {_and(controls)}, "
            "identical twin" + ("s" if len(controls) > 1 else "") + " whose truth is 1.00; an "
            "arm is within noise when its interval contains 1.0, or lies inside the bias band of "
            f"a flagged control: one not shown equivalent within ±{units.percent(EQUIVALENCE_MARGIN)} "
            "(two "
            "one-sided tests) whose difference holds after Holm's adjustment over the run's controls"
        )
    elif options.control:
        notes.append(
            "A/A control: eager-control is a second eager arm; an arm whose interval contains "
            "1.0 or overlaps the control's is within noise (session schema 2's rule)"
        )
    acc = [r.accuracy for r in rows if r.accuracy]
    parity = script_section.accuracy_note(model) if _script(model) else None
    if parity:
        notes.append(parity)
    elif acc:
        tol = next((a for a in acc if a.rtol is not None), None)
        checked = next((a.checked for a in acc if a.checked), None)
        compared = _and(list(checked)) if checked else "outputs and every parameter gradient"
        step = "inference step" if options.loop == "inference" else "training step"
        autocast = next((a.autocast for a in acc if a.autocast), None)
        two = next((a.steps for a in acc if a.steps), 1)
        steps_text = f"two untimed {step}s" if two == 2 else f"one untimed {step}"
        if two == 2:
            steps_text += " (the second from the weights the first produced)"
        runs = "eager twice (they must agree, else the model is nondeterministic) against"
        notes.append(
            f"accuracy: {steps_text} per batch size in its own process, "
            f"{runs if two == 2 else 'eager against'} the arm (fallback_random=True), "
            f"{compared} compared"
            + (f" under autocast to {autocast}" if autocast else "")
            + (f" (rtol {tol.rtol:g}, atol {tol.atol:g})" if tol else "")
            + ", a float64 run settling mismatches"
            + (
                f"; distributed arms on each of their {ranks} ranks, the wrapped model against "
                "plain copies whose gradients are averaged across ranks (FSDP's gathered whole)"
                if (ranks := max((a.ranks_checked or 0) for a in acc)) > 1
                else ""
            )
        )
    if options.added_arms:
        notes.append(
            "arms added by --apply-advice ran after the main rounds, not interleaved with the "
            "other arms: read their recompiles, and their timings as indicative only"
        )
    return notes
