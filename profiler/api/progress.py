"""What `tcprof.run(progress=...)` shows while a run goes: the caller's callback (given a
`Progress` at every event), the CLI's own progress line on the terminal, or a live display in
a notebook cell. All three fold the events with the run's one ProgressModel.

A callback that raises KeyboardInterrupt stops the run as Ctrl+C does (the workers end, what
was measured is kept) and is not called again; one that raises anything else is dropped with a
warning and the run goes on.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from tcprof.profiler.config import RunConfig
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.recording.progress import TerminalProgress
from tcprof.profiler.run.progress_model import ProgressModel


class TcprofWarning(UserWarning):
    """Something the run could not do that loses nothing measured (a report not written, a
    callback dropped, a tracker not reached)."""


@dataclass(frozen=True)
class Progress:
    """How far the run has got when `event` arrived: `fraction` of the first steps and timed
    blocks done (0 to 1), `where` ('round 2/3 · inductor · bs 8 · warm-up'), seconds since the
    run began, and the event itself (its `type`: phase, first_step, block_done, ...)."""

    fraction: float
    where: str
    elapsed_s: float
    event: Mapping[str, Any] = field(repr=False)

    @property
    def kind(self) -> str:
        return str(self.event.get("type"))


ProgressCallback = Callable[[Progress], object]
ProgressChoice = bool | ProgressCallback | None


def check_progress(progress: object) -> None:
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise ValueError(f"progress= is True, False or a callable, not {progress!r}")


class _NotebookProgress(TerminalProgress):
    """The CLI's progress wording (which events are worth a line), drawn in a cell."""

    def __init__(self, config: RunConfig, names: list[str], show_output: bool) -> None:
        super().__init__(config, names, stream=io.StringIO(), show_output=show_output)
        from tcprof.profiler.api.notebook import LiveDisplay

        self.display = LiveDisplay(self.model)
        self._line: str | None = None

    def __call__(self, e: dict[str, Any]) -> None:
        self._line = None
        super().__call__(e)
        self.display(e, self._line)

    def _say(self, text: str) -> None:
        self._line = text

    def _phase_line(self, e: dict[str, Any]) -> None:
        """The bar shows the phase; no line per phase."""


class RunProgress:
    """The run's listener for `progress=`: True (or None, the default, unless `quiet`) shows
    progress on the terminal or in the notebook cell; False shows none; a callable is called."""

    def __init__(
        self, config: RunConfig, progress: ProgressChoice, quiet: bool, show_output: bool
    ) -> None:
        from tcprof.profiler.api.notebook import in_notebook

        names = [a.name for a in config.run_arms]
        self._callback: ProgressCallback | None = None
        self._shown: TerminalProgress | None = None
        self._model = ProgressModel(names, config)
        self._stopping = False
        if callable(progress):
            self._callback = progress
        elif progress is True or (progress is None and not quiet):
            self._shown = (
                _NotebookProgress(config, names, show_output)
                if in_notebook()
                else TerminalProgress(config, names, show_output=show_output)
            )
        check_progress(progress)

    def __call__(self, event: Event) -> None:
        if self._shown is not None:
            self._shown(event)
        if self._callback is None or self._stopping:
            return
        self._model.apply(event)
        update = Progress(
            self._model.fraction,
            self._model.where(),
            self._model.run_elapsed_s(),
            MappingProxyType(dict(event)),
        )
        try:
            self._callback(update)
        except KeyboardInterrupt:
            self._stopping = True  # the run is ending: the callback has had its say
            raise
        except Exception as exc:
            self._callback = None
            warnings.warn(
                f"the progress callback raised {type(exc).__name__}: {exc}; it is not called "
                "again, and the run goes on",
                TcprofWarning,
                stacklevel=2,
            )

    def close(self, status: str) -> None:
        if isinstance(self._shown, _NotebookProgress):
            self._shown.display.close(f"run {status}")
        if self._shown is not None:
            self._shown.close()
