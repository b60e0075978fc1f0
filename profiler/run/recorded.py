"""One recorded run: its session folder locked, its events appended to events.jsonl as
they arrive, the run itself, and session.json and steps.csv saved however it ended.

`tcprof run`, `tcprof.run` and the window's run thread record runs through this object behind their
one front door (profiler/recording/entry.py: the folder chosen, the reports, trackers, signals),
the test fixtures directly, so the lifecycle is written once. The folder is known before the runner
exists: the run's config names it (`artifacts_dir`, where traces, weights and snapshots go) from
the start, and nothing is patched in once the run is going.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from tcprof.profiler.config import RunConfig
from tcprof.profiler.folders.files import clear_earlier_run, open_event_log, save_session
from tcprof.profiler.folders.run_lock import RunLock
from tcprof.profiler.protocol.types import Event, Listener
from tcprof.profiler.session.fold import SessionFold


class SessionRunner(Protocol):
    """What a recorded run drives: the engine's `Runner`, or a test's stand-in."""

    session: SessionFold

    def run(self) -> SessionFold: ...

    def cancel(self) -> None: ...


RunnerFactory = Callable[[RunConfig, list[Listener]], SessionRunner]
Check = Callable[[RunConfig], "str | None"]  # what is known wrong before any arm runs, or None
REFUSED = "refused"  # the run's status when the check found something wrong: nothing ran


def engine_runner(config: RunConfig, listeners: list[Listener]) -> SessionRunner:
    from tcprof.profiler.run.runner import Runner  # the schedule and its processes

    return Runner(config, listeners=listeners)


def _engine_check(factory: RunnerFactory) -> Check | None:
    """The engine's runner starts real workers: its run is checked first. A test's stand-in
    (scripted fake workers, a canned session) runs nothing real and is not."""
    from tcprof.profiler.run.preflight import check_before_run
    from tcprof.profiler.run.runner import Runner

    return check_before_run if factory in (engine_runner, Runner) else None


@dataclasses.dataclass(frozen=True)
class Saved:
    """Where a recorded run's session went (None: nowhere) and, when not where asked, why."""

    folder: Path | None
    problem: str | None


class RecordedRun:
    """A run recorded into `folder`: locked for the run's life (`lock`, taken by the caller or
    here), events.jsonl appended live (a write that fails is one `log` event, given to the
    session and to `on_log_failure`, and the run goes on), session files saved by `save()`.

    `listeners` hear every event after the log has it; `run()` returns the session however
    the run ended (Ctrl+C included: `interrupted` says so). Before the runner starts, `check`
    (by default profiler/run/preflight.py's, for the engine's runner) looks for what is known
    wrong: found, the run is `refused` (`refusal` says why, as one `usage` error event) and
    no arm runs."""

    def __init__(
        self,
        config: RunConfig,
        folder: Path,
        lock: RunLock | None = None,
        listeners: Sequence[Listener] = (),
        runner_factory: RunnerFactory = engine_runner,
        on_log_failure: Listener | None = None,
        check: Check | None | bool = True,
    ) -> None:
        """check: True for the engine's check when the runner is the engine's, None for none."""
        self.folder = Path(folder)
        self.config = dataclasses.replace(config, artifacts_dir=str(self.folder.absolute()))
        self._lock = lock if lock is not None else _try_lock(self.folder)
        self._on_log_failure = on_log_failure
        self._log = open_event_log(self.folder, on_failure=self._log_failed)
        self._listeners: list[Listener] = [self._log, *listeners]
        self.runner = runner_factory(self.config, self._listeners)
        self._check = _engine_check(runner_factory) if check is True else check or None
        self.interrupted = False
        self.refusal: str | None = None

    @property
    def session(self) -> SessionFold:
        """The session as folded so far (the runner's own)."""
        return self.runner.session

    def cancel(self) -> None:
        """Ask the run to end, from any thread; `run()` returns what was measured."""
        self.runner.cancel()

    def run(self) -> SessionFold:
        """Run to the end (or until cancelled or interrupted); the log is closed either way."""
        try:
            started = time.monotonic()
            self.refusal = self._check(self.config) if self._check is not None else None
            if self.refusal is not None:
                return self._refuse(self.refusal)
            if self._check is not None:
                _note_preflight(self.runner, time.monotonic() - started)
            return self.runner.run()
        except KeyboardInterrupt:
            self.interrupted = True
            return self.runner.session
        finally:
            self._log.close()

    def _refuse(self, problem: str) -> SessionFold:
        """The run as recorded when its check failed: started, one usage error, ended."""
        now = time.time()
        for event in (
            {"type": "run_start", "config": self.config.to_dict(), "wall_time": now, "t": 0.0},
            {"type": "error", "kind": "usage", "message": problem, "fatal": True, "t": 0.0},
            {"type": "run_end", "status": REFUSED, "wall_time": now, "t": 0.0},
        ):
            self.session.apply(event)
            for listener in self._listeners:
                listener(event)
        return self.session

    def save(self, session: dict[str, Any] | None = None) -> Saved:
        """Write session.json and steps.csv into the folder (else into a temporary folder, so
        what was measured is kept), then release the folder's lock. `session` is the session's
        dict when the caller has one already. A refused run ran nothing: its folder keeps
        nothing (an --out can be used again at once), and it is saved nowhere."""
        if self.refusal is not None:
            self.release()
            clear_earlier_run(self.folder)
            with contextlib.suppress(OSError):
                self.folder.rmdir()  # a folder made for this run; one holding other files stays
            return Saved(None, None)
        try:
            data = session if session is not None else self.session.to_dict()
            saved, problem = save_session(data, self.folder)
        except Exception as exc:  # what was measured must never be lost to an exception here
            saved, problem = None, f"could not save the session in {self.folder}: {exc}"
        finally:
            self.release()
        return Saved(saved, problem)

    def release(self) -> None:
        """Release the folder's lock (recovery may then look at it); idempotent."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _log_failed(self, event: Event) -> None:
        session = getattr(getattr(self, "runner", None), "session", None)
        if session is not None:
            session.apply(event)
        if self._on_log_failure is not None:
            self._on_log_failure(event)


def _try_lock(folder: Path) -> RunLock | None:
    """The folder's lock; a fresh folder of this run is refused only by a broken file system,
    and the run goes on without it then."""
    try:
        return RunLock(folder)
    except OSError:
        return None


def _note_preflight(runner: SessionRunner, seconds: float) -> None:
    """The engine's runner records how long the check took (the fork server importing torch for
    its probe, about 4 s of a CLI run): the timeline shows it before round 0."""
    from tcprof.profiler.run.runner import Runner

    if isinstance(runner, Runner):
        runner.preflight_s = round(seconds, 4)
