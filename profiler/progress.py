"""Terminal progress for `tcprof run`: phases, compile time running, steps measured.

On a terminal one status line is redrawn in place (with a ticker, so a long compile shows its
time running); otherwise each phase change is one plain line."""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any


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
        self.names = arm_names
        blocks = max(1, min(config.blocks, config.steps))
        rounds = max(1, getattr(config, "replicates", 1))
        # progress counts first steps and measured blocks (a block may run more steps than
        # asked for, to last its minimum time)
        self.total = len(arm_names) * len(config.batch_sizes) * (blocks + 1) * rounds
        self.rounds = rounds
        self.done = 0
        self.status = "starting workers"
        self.status_since = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._shown_env = False
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

    def _redraw(self) -> None:
        with self._lock:
            pct = 100.0 * self.done / self.total if self.total else 0
            elapsed = time.monotonic() - self.status_since
            line = f"[{pct:5.1f}%] {self.status} {elapsed:.1f} s"
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

    def _set_status(self, text: str) -> None:
        with self._lock:
            self.status, self.status_since = text, time.monotonic()
        if not self.tty:
            self._say(text)

    def __call__(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        arm = (
            self.names[e["arm"]]
            if isinstance(e.get("arm"), int) and e["arm"] < len(self.names)
            else "?"
        )
        bs = e.get("batch_size")
        rep = e.get("replicate")
        repeated = rep not in (0, None)  # later rounds repeat what the first showed
        if kind == "round_start":
            cache = e.get("cache")
            self._say(
                f"round {e['replicate'] + 1}/{self.rounds}: a fresh process per arm"
                + (f", compiled arms start from a {cache} cache" if cache != "user" else "")
            )
        elif kind == "accuracy":
            worst = e.get("worst") or {}
            detail = (
                f" (worst: {worst.get('name')}, rel err {worst.get('max_rel_err'):.2g})"
                if worst and worst.get("max_rel_err") is not None
                else ""
            )
            self._say(f"[{arm}] bs={bs} accuracy {e.get('status')}{detail}")
            if e.get("status") != "pass" and e.get("reason"):
                self._say(f"[{arm}]   {e['reason']}")
        elif repeated and kind in ("loaded", "graph_break", "fallback", "compile"):
            return
        elif kind == "hello" and not self._shown_env:
            self._shown_env = True
            self._say(
                f"torch {e.get('torch')} · python {e.get('python')} · {e.get('device')} ({e.get('device_name')})"
            )
        elif kind == "loaded":
            self._say(
                f"[{arm}] {e.get('model')}: {e.get('params'):,} parameters, input {e.get('input')}"
            )
        elif kind == "phase":
            phase = e.get("phase")
            if phase == "compiling":
                self._set_status(f"[{arm}] bs={bs} compiling (first step)…")
            elif phase == "first_step":
                self._set_status(f"[{arm}] bs={bs} first step…")
            elif phase == "warmup":
                self._set_status(f"[{arm}] bs={bs} warm-up…")
            elif phase == "measuring" and self.tty:
                self._set_status(f"[{arm}] bs={bs} measuring…")
            elif phase == "loading":
                self._set_status(f"[{arm}] loading model…")
            elif phase == "accuracy":
                self._set_status(f"[{arm}] bs={bs} accuracy check (untimed)…")
        elif kind == "first_step":
            self.done += 1
            extra = f", dynamo compile {e['compile_s']:.2f} s" if e.get("compiles") else ""
            where = f" (round {rep + 1})" if isinstance(rep, int) and self.rounds > 1 else ""
            self._say(f"[{arm}] bs={bs} first step {e['ms'] / 1000:.2f} s{extra}{where}")
        elif kind == "block_done":
            self.done += 1
        elif kind == "recompile" or (kind == "compile" and e.get("kind") == "recompile"):
            self._say(
                f"[{arm}] bs={bs} recompile ({e.get('seconds') or 0:.2f} s): {e.get('reason')}"
            )
        elif kind == "graph_break":
            where = f"{e.get('file')}:{e.get('line')}" if e.get("file") else ""
            self._say(f"[{arm}] graph break at {where}: {e.get('reason')}")
        elif kind == "fallback":
            self._say(f"[{arm}] bs={bs} hit the recompile limit: {e.get('frame')} now runs eagerly")
        elif kind == "error":
            self._say(f"[{arm}] error: {e.get('message')}")
        elif kind == "log" and e.get("stream") == "output" and not self.quiet and self.show_output:
            self._say(f"[{arm}] {e.get('text')}")
