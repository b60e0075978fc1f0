"""Terminal progress for `tcprof run` (and `tcprof.run` off a notebook): phases, compile time
running, notable events.

On a terminal one status line is redrawn in place (with a ticker, so a long compile shows its time
running); otherwise each phase change is one plain line. What a line says comes from event_text and
how far the run has got from progress_model, as in the application.
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.event_text import describe, phase_text, phase_words
from tcprof.profiler.protocol.events import CompileKind, EventType, Phase
from tcprof.profiler.run.progress_model import ProgressModel

# Later rounds repeat what the first showed of these.
_SHOWN_ONCE = {
    EventType.LOADED,
    EventType.GRAPH_BREAK,
    EventType.FALLBACK,
    EventType.COMPILE,
    EventType.SCRIPT,
}
# Not worth a terminal line (the log panel shows them; the summary follows the run).
_NOT_ON_TERMINAL = {
    EventType.RUN_END,
    EventType.ARTIFACT,
    EventType.CACHE_LOADED,
    EventType.CACHE_SAVED,
}


class TerminalProgress:
    def __init__(
        self,
        config: Any,
        arm_names: list[str],
        stream: IO[str] | None = None,
        quiet: bool = False,
        show_output: bool = False,
    ):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet
        self.show_output = show_output  # echo the model's own printed output
        self.model = ProgressModel(arm_names, config)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._shown_env: set[object] = set()  # the interpreters whose hello was shown
        if self.tty and not quiet:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def close(self) -> None:
        self._stop.set()
        if self._ticker:
            self._ticker.join(timeout=1)
        if self.tty and not self.quiet:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(0.25):
            self._redraw()

    def status_line(self) -> str:
        with self._lock:
            m = self.model
            done = units.percent(m.fraction, digits=1)
            return f"[{done:>6}] {m.where()}… {units.duration(m.phase_elapsed_s())}"

    def _redraw(self) -> None:
        line = self.status_line()
        with self._lock:
            self.stream.write("\r\033[K" + line[:160])
            self.stream.flush()

    def _say(self, text: str) -> None:
        if self.quiet:
            return
        with self._lock:
            if self.tty:
                self.stream.write("\r\033[K")
            self.stream.write(text + "\n")
            self.stream.flush()

    def __call__(self, e: dict[str, Any]) -> None:
        with self._lock:
            self.model.apply(e)
        kind = e.get("type")
        if kind == EventType.PHASE:
            self._phase_line(e)
        elif self._wants(e):
            text = describe(e, rounds=self.model.rounds, script=self.model.script)
            if text is not None:
                arm = e.get("arm")
                self._say(text if arm is None else f"[{self.model.arm_name(arm)}] {text}")

    def _phase_line(self, e: dict[str, Any]) -> None:
        """Off a terminal, one line per phase change, except the many measured blocks."""
        if self.tty or e.get("phase") in (Phase.MEASURING, Phase.IDLE):
            return
        words = phase_words(e.get("batch_size"), self.model.script)
        at = f" {words}:" if words else ""
        self._say(f"[{self.model.arm_name(e.get('arm'))}]{at} {phase_text(e.get('phase'))}…")

    def _wants(self, e: dict[str, Any]) -> bool:
        kind = e.get("type")
        if kind in _NOT_ON_TERMINAL:
            return False
        if kind in _SHOWN_ONCE and e.get("replicate") not in (0, None):
            return False
        if kind == EventType.HELLO:  # once, and once more for each arm's own interpreter
            shown = e.get("executable") in self._shown_env or (
                bool(self._shown_env) and e.get("executable") is None
            )
            self._shown_env.add(e.get("executable"))
            return not shown
        if kind == EventType.COMPILE:  # a first compile is told by its first step's line
            return e.get("kind") == CompileKind.RECOMPILE
        if kind == EventType.LOG:
            return self.show_output and e.get("stream") == "output"
        if kind == EventType.ERROR and e.get("arm") is None and e.get("kind") == "usage":
            return False  # a refused run: the command's own error line says it, once
        if kind == EventType.WORKER_EXIT:
            return e.get("status") not in ("normal", "stopped")
        return True
