"""The method notes: how the figures were measured, in plain sentences (the steps a process
ran, the rounds and their order, the intervals, the A/A controls, the accuracy check and its
tolerance), for the terminal, report.md, report.html and the window."""

from __future__ import annotations

from tcprof.profiler.analysis import stopping
from tcprof.profiler.analysis.schedule import SavedSchedule
from tcprof.profiler.analysis.stats import EQUIVALENCE_MARGIN, SETTLED_RATIO
from tcprof.profiler.config import DEFAULT_REPLICATES, balanced_rounds, threads_per_process
from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol import units
from tcprof.profiler.report.sections import script as script_section
from tcprof.profiler.report.sections.columns import percent_digits
from tcprof.profiler.report.sections.seeding import seeding_notes


def steps_text(model: SessionModel) -> str:
    """'1 first step + 5 warm-up + 50 asked per process (5 blocks of 10); measured 5,744–8,292
    per process: each block runs at least 100 ms': the steps a process really measured, and
    why a block grew, beside what was asked."""
    options = model.options
    steps, blocks = options.steps, options.blocks
    text = f"1 first step + {options.warmup} warm-up + {steps} measured asked per process"
    script = script_section.script_of(model)
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
            f"round's ratio of process medians, with its paired t {units.percent(level, percent_digits(level))} "
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
    parity = script_section.accuracy_note(model) if script_section.script_of(model) else None
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
