"""A script's events from its ranks: per-step own time and loss merged by step index, whatever
batches each rank sent them in; what was compiled said once; every rank's files kept."""

from __future__ import annotations

import os

from tcprof.profiler.analysis import stragglers
from tcprof.profiler.distributed.rank_merge import RankMerger
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.worker.script import driver as script_driver


def _merger() -> tuple[RankMerger, list[dict]]:
    out: list[dict] = []
    merger = RankMerger(2, out.append)
    merger.identity = {0: {"node": 0, "host": "a"}, 1: {"node": 0, "host": "a"}}
    return merger, out


def _merged_steps(out: list[dict]) -> list[dict]:
    return [e for e in out if e["type"] == "steps"]


def test_own_time_and_loss_follow_their_step_when_the_ranks_batch_differently():
    merger, out = _merger()
    base = {"type": "steps", "batch_size": 1, "phase": "warmup"}
    merger.offer(0, {**base, "start": 1, "ms": [5, 6, 7], "own_ms": [1, 2, 3], "loss": [9, 8, 7]})
    merger.offer(1, {**base, "start": 1, "ms": [4, 9], "own_ms": [2, 1], "loss": [19, 18]})
    merger.offer(1, {**base, "start": 3, "ms": [8, 1], "own_ms": [0.5, 4], "loss": [17, 16]})
    first, second = _merged_steps(out)
    assert (first["start"], first["ms"], first["own_ms"], first["loss"]) == (
        1,
        [5, 9],
        [2, 2],  # the slower rank's own time: the step waits for it
        [9, 8],  # rank 0's loss, the one a script logs
    )
    assert (second["start"], second["ms"], second["own_ms"], second["loss"]) == (3, [8], [3], [7])
    merger.offer(0, {**base, "start": 4, "ms": [2], "own_ms": [None], "loss": [None]})
    last = _merged_steps(out)[-1]
    assert (last["start"], last["own_ms"], last["loss"]) == (4, [4], [None])


def test_a_model_files_steps_gain_no_script_fields():
    merger, out = _merger()
    base = {"type": "steps", "batch_size": 4, "phase": "measure", "block": 0, "start": 0}
    merger.offer(0, {**base, "ms": [1.0]})
    merger.offer(1, {**base, "ms": [2.0]})
    (merged,) = _merged_steps(out)
    assert "own_ms" not in merged and "loss" not in merged


def test_what_was_compiled_is_said_once_and_every_ranks_files_are_kept():
    merger, out = _merger()
    note = {"type": "script", "batch_size": 1, "kind": "in_place", "text": "compiled in place"}
    merger.offer(1, note)
    merger.offer(0, note)
    files = {"type": "script", "batch_size": 1, "kind": "files", "files": []}
    merger.offer(0, {**files, "files": [{"path": "ckpt.pt", "bytes": 10}]})
    merger.offer(1, {**files, "files": [{"path": "rank1.log", "bytes": 3}]})
    scripts = [e for e in out if e["type"] == "script"]
    assert [e.get("kind") for e in scripts] == ["in_place", "files", "files"]
    assert [f["path"] for e in scripts[1:] for f in e["files"]] == ["ckpt.pt", "rank1.log"]


def test_a_ranks_block_counts_its_launchers_whole_job_as_its_own(monkeypatch):
    monkeypatch.delenv("TCPROF_CONNECT", raising=False)
    alone_everyone, alone_own = script_driver.own_children()
    assert os.getppid() not in alone_everyone and os.getppid() not in alone_own
    monkeypatch.setenv("TCPROF_CONNECT", "127.0.0.1:1")  # as torchrun's rank sees it
    everyone, own = script_driver.own_children()
    assert own == [os.getppid()]  # the launcher's tree: the fellow ranks wait for this one
    assert os.getppid() in everyone  # not a peer the quiet room waits for


def test_the_straggler_view_names_a_scripts_phase_not_a_batch():
    ranks = [
        {"rank": 0, "median_ms": 10.0, "node": 0, "host": "a"},
        {"rank": 1, "median_ms": 12.0, "node": 0, "host": "a"},
    ]
    row = {"batch_size": 8, "global_batch_size": None, "ranks": ranks}
    session = {"config": {"script": {"sweep": None}}, "arms": [{"name": "eager", "results": [row]}]}
    (line,) = stragglers.text_lines(SessionModel.from_json(session))[1:]
    assert line.startswith(
        "  eager (the script): 0: 10.00 ms, 1: 12.00 ms; spread 20.0%; slowest rank 1"
    )
    session["config"]["script"]["sweep"] = "seq"
    assert stragglers.cells(stragglers.rows(session)[0])[1] == "seq=8"
    model_file = {"arms": [{"name": "eager", "results": [{**row, "global_batch_size": 16}]}]}
    assert stragglers.text_lines(SessionModel.from_json(model_file))[1].startswith(
        "  eager bs 8 / 16: 0: 10.00 ms"
    )
