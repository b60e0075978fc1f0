"""Pre-started worker processes, warmed up while the user is still setting up a run.

A fresh worker spends 3-4 s here importing torch and TorchDynamo before its first step. The
desktop application keeps a few warmed workers ready, so pressing Run starts measuring at once.
A worker is handed out only once its warm-up has finished (so no stray reply reaches the run),
and only for arms that need no special environment (TORCH_TRACE and friends are read at import).
"""

from __future__ import annotations

import queue
import threading

from tcprof.profiler.process.handle import Inbox
from tcprof.profiler.process.local import WorkerProcess


class WorkerPool:
    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._inbox: Inbox = queue.Queue()
        self._lock = threading.Lock()
        self._warming: dict[int, WorkerProcess] = {}
        self._ready: list[WorkerProcess] = []
        self._next_id = -1
        self._closed = False

    def fill(self) -> None:
        """Start workers until `size` are ready or warming (cheap: Popen does not wait)."""
        with self._lock:
            if self._closed:
                return
            self._collect()
            missing = self.size - len(self._ready) - len(self._warming)
            for _ in range(max(0, missing)):
                worker = WorkerProcess(self._next_id, self._inbox, wait_for_fork_server=False)
                worker.send({"cmd": "warm"})
                self._warming[self._next_id] = worker
                self._next_id -= 1

    def _collect(self) -> None:
        while True:
            try:
                index, event = self._inbox.get_nowait()
            except queue.Empty:
                return
            worker = self._warming.get(index)
            if worker is None:
                continue
            if event.get("type") == "done" and not event.get("failed"):
                self._ready.append(self._warming.pop(index))
            elif event.get("type") in ("_eof", "error") or event.get("failed"):
                self._warming.pop(index).stop(grace_s=0.2)

    def ready_count(self) -> int:
        with self._lock:
            self._collect()
            return len(self._ready)

    def take(self, index: int, inbox: Inbox) -> WorkerProcess | None:
        """A warmed worker rebound to a run's queue, or None if none is ready yet."""
        with self._lock:
            self._collect()
            while self._ready:
                worker = self._ready.pop(0)
                if worker.alive():
                    worker.rebind(index, inbox)
                    return worker
                worker.stop(grace_s=0.1)
            return None

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = [*self._ready, *self._warming.values()]
            self._ready, self._warming = [], {}
        for worker in workers:
            worker.send({"cmd": "exit"})
        for worker in workers:
            worker.stop(grace_s=1.0)
