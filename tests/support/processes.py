"""The worker processes a test left behind: what the suite-wide check and the Stop tests look
for. The engine's fork server is not one of them (it lives as long as the engine)."""

from __future__ import annotations

import psutil

from tcprof.profiler.process.forked import fork_server_pid


def worker_processes() -> list[psutil.Process]:
    """This process's descendants that are tcprof workers (or their children), running now."""
    server = fork_server_pid()
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.pid != server and "tcprof.profiler.worker" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found
