"""A neighbour that keeps the machine busy while a block runs is seen (issue 20, item 7): the
block is flagged contended, and the table and the notes say so."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from tcprof.profiler.analysis.verdict import session_notes
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import contention_text
from tcprof.profiler.worker.quiet_room import BlockWatch
from tests.support.typed import row_of

BUSY = "import time\nend = time.time() + 30\nwhile time.time() < end: pass\n"


def _wait_until_busy(pid: int, cpu_s: float = 0.1, timeout_s: float = 30.0) -> None:
    """Until the neighbour has spent `cpu_s` of CPU time: its interpreter has started and spins."""
    process, deadline = psutil.Process(pid), time.monotonic() + timeout_s
    while sum(process.cpu_times()[:2]) < cpu_s:
        assert time.monotonic() < deadline, "the neighbour never started spinning"
        time.sleep(0.02)


@pytest.mark.timeout(60)
def test_a_busy_neighbour_during_a_block_is_read_as_contention():
    neighbour = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        _wait_until_busy(neighbour.pid)
        watch = BlockWatch()
        time.sleep(0.6)  # the watched stretch: this process idles, the busy time is elsewhere
        elsewhere, contended = watch.read()
    finally:
        neighbour.kill()
        neighbour.wait()
    assert elsewhere > 0.7, elsewhere  # about one core
    assert contended


def test_a_contended_row_says_so_in_the_table_and_the_notes():
    row = {"batch_size": 8, "contended_blocks": 4, "unquiet_blocks": 1, "blocks_measured": 30}
    assert contention_text(row_of(row)) == " (4/30 blocks contended)"
    assert contention_text(row_of({"contended_blocks": 0, "unquiet_blocks": 0})) == ""
    notes = session_notes(SessionModel.read({"arms": [{"name": "eager", "results": [row]}]}))
    assert any("eager at bs 8: 4/30" in n and "busy" in n for n in notes)
    assert not [
        n
        for n in session_notes(SessionModel.read({"arms": [{"name": "eager", "results": [{}]}]}))
        if n
    ]
