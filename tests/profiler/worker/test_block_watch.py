"""A neighbour that keeps the machine busy while a block runs is seen (issue 20, item 7): the
block is flagged contended, and the table and the notes say so."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tcprof.profiler.analysis.verdict import session_notes
from tcprof.profiler.report.table import contention_text
from tcprof.profiler.worker.quiet_room import BlockWatch

BUSY = "import time\nend = time.time() + 30\nwhile time.time() < end: pass\n"


@pytest.mark.timeout(60)
def test_a_busy_neighbour_during_a_block_is_read_as_contention():
    neighbour = subprocess.Popen([sys.executable, "-c", BUSY])
    try:
        time.sleep(0.3)  # the neighbour is running
        watch = BlockWatch()
        time.sleep(0.6)  # this process idles: all the machine's busy time is elsewhere
        elsewhere, contended = watch.read()
    finally:
        neighbour.kill()
        neighbour.wait()
    assert elsewhere > 0.7, elsewhere  # about one core
    assert contended


def test_a_contended_row_says_so_in_the_table_and_the_notes():
    row = {"batch_size": 8, "contended_blocks": 4, "unquiet_blocks": 1, "blocks_measured": 30}
    assert contention_text(row) == " (4/30 blocks contended)"
    assert contention_text({"contended_blocks": 0, "unquiet_blocks": 0}) == ""
    notes = session_notes({"arms": [{"name": "eager", "results": [row]}]})
    assert any("eager at bs 8: 4/30" in n and "busy" in n for n in notes)
    assert not [n for n in session_notes({"arms": [{"name": "eager", "results": [{}]}]}) if n]
