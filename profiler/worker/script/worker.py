"""One arm of a script run inside its worker process: the commands of a model file's worker,
answered by running the user's script unchanged.

`load` sets the arm up (threads, caches, the compile watcher); `prepare` runs the script for
one phase (a value of the sweep) under its hooks, and the schedule's next commands are
answered at its step boundaries (script_driver.py) until a command it cannot answer there
ends it; `accuracy` runs it three times for loss parity (script_parity.py). Every command is
answered by exactly one `done`, whatever the script does.
"""

from __future__ import annotations

import traceback
from typing import Any

import torch

from tcprof.profiler.config import ArmSpec, RunConfig, ScriptSource
from tcprof.profiler.worker import (
    arm_setup,
    compile_cache,
    cpu_check,
    environment,
    lifeline,
)
from tcprof.profiler.worker.channel import EventChannel
from tcprof.profiler.worker.errors import StepFailed, simple_error
from tcprof.profiler.worker.script import alarm as script_alarm
from tcprof.profiler.worker.script import files as script_files
from tcprof.profiler.worker.script import parity as script_parity
from tcprof.profiler.worker.script import ranks as script_ranks
from tcprof.profiler.worker.script import run as script_run
from tcprof.profiler.worker.script.compiles import ScriptCompiler
from tcprof.profiler.worker.script.driver import Commands, ScheduleDriver
from tcprof.profiler.worker.script.errors import script_error
from tcprof.profiler.worker.script.hooks import ScriptHooks
from tcprof.profiler.worker.script.insight import Insight
from tcprof.profiler.worker.script.steps import StepMarks, StepTracker, loss_value


class ScriptWorker:
    def __init__(self, channel: EventChannel, commands: Commands) -> None:
        self.ch = channel
        self.commands = commands
        self.cfg: RunConfig | None = None
        self.arm: ArmSpec | None = None
        self.threads: int | None = None
        self.insight = Insight(channel, None)
        self.reaper: int | None = None
        self.runs = 0  # runs of the script in this process so far

    @property
    def source(self) -> ScriptSource:
        assert self.cfg is not None and self.cfg.script is not None
        return self.cfg.script

    # -- commands -------------------------------------------------------------------------------
    def load(
        self,
        config: dict[str, Any],
        arm_index: int,
        cache_dir: str | None = None,
        cache_artifacts: str | None = None,
        threads: int | None = None,
        cpu_check_dir: str | None = None,
    ) -> None:
        """As a model file's arm loads (arm_worker.py), with the script's own model found later,
        when it runs: cpu_check_dir, where inductor's once-per-machine CPU check keeps its
        libraries, run here before anything compiles and before the portable artifacts land."""
        cfg = self.cfg = RunConfig.from_dict(config)
        arm = self.arm = cfg.run_arms[arm_index]
        self.threads = threads
        if threads:
            torch.set_num_threads(threads)
        self.ch.emit("hello", **environment.describe("cpu", with_backends=arm.compiled))
        self.ch.emit("phase", phase="loading", batch_size=None)
        if self.reaper is None:
            self.reaper = lifeline.start_group_reaper()
        arm_setup.import_dynamo()
        checked = None
        if arm.compiled:
            from tcprof.profiler.worker.dynamo_insight import CompileWatcher

            arm_setup.check_backend(arm)
            if cache_dir:
                compile_cache.use_cache_dir(cache_dir)
            checked = _cpu_check(arm, cache_dir, cpu_check_dir)
            if cache_artifacts:
                self.ch.emit("cache_loaded", **compile_cache.load_artifacts(cache_artifacts))
            self.insight = Insight(self.ch, CompileWatcher(cfg.debug, self.source.path))
        self.ch.emit(
            "loaded",
            model=self.source.command_text(),
            params=None,
            input="the script's own data",
            input_source="script",
            cache_dir=cache_dir if arm.compiled else None,
            threads=torch.get_num_threads(),
            weights=None,
            regional=None,
            parallel=None,
            loop={"kind": "script", "step_on": self.source.step_on},
            candidates=[],
            **({"cpu_check": checked} if checked else {}),
        )

    def run(self, cmd: dict[str, Any]) -> None:
        """`prepare`: run the script for one phase; `done` is sent by the driver when the
        warm-up ends, or here, with the error, when the script ended first."""
        cfg, arm = self.cfg, self.arm
        if cfg is None or arm is None:
            self._fail("prepare", simple_error("protocol", "prepare before load"))
            return
        bs = int(cmd["batch_size"])
        self.insight.reset()
        driver = ScheduleDriver(
            self.ch, self.commands, cfg, arm.compiled, bs, self.insight, self.threads
        )
        tracker = StepTracker(self.source.step_on, driver.on_step)
        driver.tracker = tracker
        phase = "compiling" if arm.compiled else "first_step"
        self.ch.emit("phase", phase=phase, batch_size=bs)
        try:
            end = self._run_script(bs, arm, tracker)
        except Exception as exc:  # ours, not the script's
            driver.abort()
            if driver.owed:
                self._fail(driver.owed, _internal(exc))
            return
        driver.abort()
        if driver.owed is not None:
            in_step = tracker.started is not None
            event = script_error(end, cfg, bs, driver.steps_run, in_step, arm.compiled)
            self.insight.take(bs, driver.steps_run)
            self._fail(driver.owed, event)

    def _run_script(self, bs: int, arm: ArmSpec, tracker: StepTracker) -> script_run.ScriptEnd:
        """One run under the hooks, with the run's seeds; what it wrote is reported after."""
        assert self.cfg is not None
        if arm.compiled and self.runs:  # a new configuration: none of the last one's graphs
            from torch import _dynamo

            _dynamo.reset()
        run, self.runs = self.runs, self.runs + 1
        compiler = ScriptCompiler(arm, tracker, torch.compile, self._note(bs))
        self.insight.follow(tracker, lambda: compiler.model)
        script_run.set_seeds(self.cfg.seed)
        script_files.begin([self.cfg.artifacts_dir])
        script_alarm.arm(self.source.no_step_timeout_s, arm.compiled)
        try:
            with ScriptHooks(tracker, compiler) as hooks, script_ranks.own_rendezvous(run):
                end = script_run.run_once(self.source, self.source.argv_for(self._value(bs)))
        finally:
            written = script_files.end()
        if written:
            self.ch.emit(
                "script", batch_size=bs, kind="files", files=written, text=_files_text(written)
            )
        if hooks.skipped:
            self.ch.emit("script", batch_size=bs, **_skipped_note(hooks.skipped, tracker.index))
        return end

    def _value(self, bs: int) -> int | None:
        return bs if self.source.sweep else None

    def _note(self, bs: int) -> Any:
        def note(info: dict[str, Any]) -> None:
            self.ch.emit("script", batch_size=bs, **info)

        return note

    def accuracy(self, batch_sizes: list[int]) -> None:
        """Loss parity per phase: eager, eager again, and this arm as it is; where its curve
        parts from eager's, the arm once more with fallback_random (script/parity.py)."""
        cfg, arm = self.cfg, self.arm
        assert cfg is not None and arm is not None
        steps = min(script_parity.STEPS, 1 + cfg.warmup + cfg.steps)
        for bs in batch_sizes:
            self.ch.emit("phase", phase="accuracy", batch_size=bs)
            curves: list[list[float | None]] = []
            runs = [(ArmSpec("eager"), False), (ArmSpec("eager"), False), (arm, False)]
            result: dict[str, Any] | None = None
            while runs:
                spec, fallback = runs.pop(0)
                losses, end = self._record(bs, spec, steps, fallback)
                if end.how not in ("stopped", "returned") and not (
                    end.how == "exit" and not end.code
                ):
                    what = script_error(end, cfg, bs, len(losses), False, spec.compiled)["message"]
                    if fallback and result is not None:  # the retry failed: the first judgment
                        retry = f"run again with fallback_random, the arm failed: {what}"
                        result["reason"] = "; ".join(filter(None, [result.get("reason"), retry]))
                        break
                    self.ch.emit(
                        "accuracy",
                        batch_size=bs,
                        status="skipped",
                        worst=None,
                        reason=f"the accuracy run failed: {what}",
                        checked=["loss"],
                    )
                    result = None
                    break
                curves.append(losses)
                if len(curves) < 3:
                    continue
                result = script_parity.compare_losses(
                    curves[0], curves[1], curves[-1], cfg.accuracy_rtol, cfg.accuracy_atol
                )
                result["fallback_random"] = fallback
                if script_parity.retry_with_fallback_random(result, arm.compiled, fallback):
                    runs.append((arm, True))
            if result is not None:
                self.ch.emit("accuracy", batch_size=bs, **result)
        self.ch.emit("phase", phase="idle", batch_size=None)

    def _record(
        self, bs: int, spec: ArmSpec, steps: int, fallback_random: bool
    ) -> tuple[list[float | None], script_run.ScriptEnd]:
        losses: list[float | None] = []
        tracker: StepTracker

        def on_step(marks: StepMarks) -> None:
            script_alarm.cancel()
            losses.append(loss_value(marks.losses))
            if len(losses) >= steps:
                tracker.stop()

        tracker = StepTracker(self.source.step_on, on_step)
        # set for every run, eager's too: the pass runs in a compiled arm's process, where a
        # retry's switch would otherwise stay on for the next batch size's eager runs
        import torch._inductor.config as inductor_config

        inductor_config.fallback_random = fallback_random
        return losses, self._run_script(bs, spec, tracker)

    def save_cache(self, path: str) -> None:
        self.ch.emit("cache_saved", **compile_cache.save_artifacts(path))

    def save_weights(self) -> None:
        self.ch.emit(
            "log",
            stream="tcprof",
            text="--save-weights does not apply to a script: it saves its own checkpoints",
        )

    # -- helpers --------------------------------------------------------------------------------
    def _fail(self, command: str, event: dict[str, Any]) -> None:
        self.ch.emit("error", **event)
        self.ch.emit("done", cmd=command, failed=True)


def _internal(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, StepFailed):
        return exc.event
    return {
        "kind": "runtime",
        "message": f"{type(exc).__name__}: {exc}",
        "traceback": "".join(traceback.format_exception(exc)),
        "fatal": True,
    }


def _files_text(written: list[dict[str, Any]]) -> str:
    names = ", ".join(w["path"] for w in written[:5])
    more = f" and {len(written) - 5} more" if len(written) > 5 else ""
    return f"the script wrote {len(written)} file(s): {names}{more}"


def _skipped_note(skipped: int, steps: int) -> dict[str, Any]:
    text = (
        f"the GradScaler skipped {skipped} of the script's {steps} steps (inf or NaN gradients: "
        "the optimizer did not step); each is still a step, timed and with its loss"
    )
    return {"kind": "skipped_steps", "skipped": skipped, "steps": steps, "text": text}


def _cpu_check(arm: ArmSpec, cache_dir: str | None, check_dir: str | None) -> dict[str, Any] | None:
    """Inductor's CPU check in a tcprof cache folder, as a model file's arm runs it. The script
    picks its own device when it runs: where CUDA is there it is taken to use it (Triton kernels,
    no vector check); a script that keeps to the CPU there has its compile run the check, as
    before."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if not cpu_check.wanted(arm.torch_backend, device, cache_dir, check_dir):
        return None
    assert cache_dir is not None and check_dir is not None
    return cpu_check.run(check_dir, cache_dir)
