"""The ranks' event streams folded into one worker's stream, and the distributed settings."""

from __future__ import annotations

import pytest

from tcprof.profiler.analysis import rank_compiles, stragglers
from tcprof.profiler.config import ArmSpec, ConfigError, ModelSource, RunConfig, parse_arm
from tcprof.profiler.distributed.rank_merge import RankMerger
from tcprof.profiler.model.ranks import RankFigures
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report import reproduce
from tcprof.profiler.report.sections import method
from tcprof.profiler.report.sections import stragglers as straggler_section
from tcprof.profiler.session.rank_figures import compile_figures


def _merger() -> tuple[RankMerger, list[dict]]:
    out: list[dict] = []
    merger = RankMerger(2, out.append)
    merger.identity = {0: {"node": 0, "host": "a"}, 1: {"node": 0, "host": "b"}}
    return merger, out


def test_a_step_is_the_slowest_ranks_once_every_rank_timed_it():
    merger, out = _merger()
    steps = {"type": "steps", "batch_size": 4, "phase": "measure", "block": 0}
    merger.offer(0, {**steps, "start": 5, "ms": [1.0, 2.0, 3.0]})
    assert [e for e in out if e["type"] == "steps"] == []
    merger.offer(1, {**steps, "start": 5, "ms": [1.5, 1.0]})
    merged = [e for e in out if e["type"] == "steps"]
    assert merged == [{**steps, "start": 5, "ms": [1.5, 2.0], "ms_fastest": [1.0, 1.0]}]
    merger.offer(1, {**steps, "start": 7, "ms": [4.0]})
    last = [e for e in out if e["type"] == "steps"][-1]
    assert last == {**steps, "start": 7, "ms": [4.0], "ms_fastest": [3.0]}
    ranks = [e for e in out if e["type"] == "rank_event"]
    assert [(e["rank"], e["host"], e["event"]["ms"]) for e in ranks][0] == (0, "a", [1.0, 2.0, 3.0])


def test_every_ranks_compile_events_are_kept_per_rank_and_rank_0s_are_the_arms():
    merger, out = _merger()
    compile_ = {"type": "compile", "batch_size": 4, "step": 0, "kind": "first", "guards": 9}
    merger.offer(0, compile_)
    merger.offer(1, {**compile_, "guards": 11})
    merger.offer(1, {"type": "graph_break", "batch_size": 4, "step": 0, "reason": "print"})
    merger.offer(1, {"type": "memory", "batch_size": 4, "step": 0, "rss_mb": 1.0})
    assert [e for e in out if e["type"] != "rank_event"] == [compile_]
    ranked = [(e["rank"], e["event"]["type"]) for e in out if e["type"] == "rank_event"]
    assert ranked == [(0, "compile"), (1, "compile"), (1, "graph_break")]


def _compiled_ranks(reasons: dict[int, str]) -> list[dict]:
    """Each rank's compile figures from its own events: one graph each (DDP split into three
    subgraphs), plus a recompile on the ranks given."""
    out = []
    for rank in range(3):
        events = [{"type": "compile", "kind": "first", "seconds": 1.5, "guards": 4}]
        events[0]["ddp_subgraphs"] = 3
        if rank in reasons:
            events.append({"type": "compile", "kind": "recompile", "reason": reasons[rank]})
        figures = compile_figures(events)
        out.append({"rank": rank, "median_ms": 10.0 + rank, **figures})
    return out


def _typed(ranks: list[dict]) -> list[RankFigures]:
    """The ranks as the session model reads them (`Row.ranks`)."""
    return [RankFigures.of(r) for r in ranks]


def test_ddp_splits_are_counted_as_such_not_as_graph_breaks():
    (rank0, *_) = _compiled_ranks({})
    assert (rank0["graphs"], rank0["graph_breaks"], rank0["ddp_splits"]) == (1, 0, 2)
    assert rank0["guards"] == 4 and rank0["compile_s"] == 1.5
    assert rank_compiles.divergence_sentences(_typed(_compiled_ranks({}))) == []
    cell = stragglers.compile_cell(_typed(_compiled_ranks({})[:1]))
    assert cell == "0: 1 graph, 0 recompiles, 0 breaks, 4 guards, 2 DDP bucket splits, 1.50 s"


def test_a_rank_that_recompiles_while_the_others_do_not_is_called_out():
    ranks = _compiled_ranks({1: "tensor 'x' size mismatch at index 0"})
    (said, *rest) = rank_compiles.divergence_sentences(_typed(ranks))
    assert said == (
        "rank 1 recompiled (tensor 'x' size mismatch at index 0) while the others did not: "
        "the classic cause of a hang or slowdown in distributed compile"
    )
    assert rest == []  # the recompile count is the only difference: said once
    session = {"arms": [{"name": "inductor", "results": [{"batch_size": 4, "ranks": ranks}]}]}
    lines = stragglers.text_lines(SessionModel.from_json(session))
    assert lines[-1] == f"    ! {said}"
    assert f"inductor bs 4: {said}" in "\n".join(straggler_section.markdown_lines(session, str))


def test_ranks_with_different_graphs_are_flagged_even_without_a_recompile():
    ranks = _compiled_ranks({})
    ranks[2] = {**ranks[2], "graphs": 2}
    assert rank_compiles.diverged(_typed(ranks)) == ["graphs"]
    assert rank_compiles.divergence_sentences(_typed(ranks)) == [
        "the ranks' compiles diverged (graphs: rank 0 1, rank 1 1, rank 2 2)"
    ]


def test_a_command_is_done_when_every_rank_is_and_failed_if_any_failed():
    merger, out = _merger()
    merger.offer(0, {"type": "block_done", "steps": 4, "quiet": True, "waited_s": 0.1})
    merger.offer(0, {"type": "done", "cmd": "measure"})
    assert out == []
    merger.offer(1, {"type": "block_done", "steps": 3, "quiet": False, "waited_s": 0.5})
    merger.offer(1, {"type": "done", "cmd": "measure", "failed": True})
    assert out == [
        {"type": "block_done", "steps": 3, "quiet": False, "waited_s": 0.5},
        {"type": "done", "cmd": "measure", "failed": True},
    ]


def test_an_error_on_any_rank_names_it_and_ends_the_command():
    merger, out = _merger()
    merger.offer(0, {"type": "phase", "phase": "measuring", "batch_size": 4})
    ends = merger.offer(1, {"type": "error", "kind": "runtime", "message": "boom", "fatal": False})
    assert ends
    assert out[0]["message"] == "rank 1 (node 0, b): boom"
    assert out[0]["fatal"] is True and out[0]["rank"] == 1
    assert out[1] == {"type": "done", "cmd": None, "failed": True}


def test_the_rank_computing_in_its_own_code_is_named_behind():
    merger, _ = _merger()
    merger.offer(0, {"type": "rank_where", "where": "graph.py:1 (x)", "in_torch": True})
    merger.offer(1, {"type": "rank_where", "where": "m.py:9 (forward)", "in_torch": False})
    assert merger.straggler().startswith("rank 1 (node 0, b) is behind")


def _config(**kw) -> RunConfig:
    return RunConfig(source=ModelSource("m.py"), **kw)


def test_distributed_settings_are_checked():
    assert parse_arm("inductor:parallel=fsdp").parallel == "fsdp"
    with pytest.raises(ConfigError, match="parallel is one of"):
        parse_arm("inductor:parallel=tp")
    with pytest.raises(ConfigError, match="give --parallel"):
        _config(nproc=2)
    with pytest.raises(ConfigError, match="inference"):
        _config(nproc=2, parallel="ddp", loop="inference")
    with pytest.raises(ConfigError, match="--nproc"):
        _config(nproc=0)
    cfg = _config(nproc=2, parallel="ddp", arms=(ArmSpec("eager", parallel="none"), ArmSpec()))
    assert [cfg.world_size(a) for a in cfg.arms] == [1, 2]
    assert RunConfig.from_dict(cfg.to_dict()) == cfg


def _ranked_session() -> dict:
    ranks = [
        {"rank": 0, "node": 0, "host": "h", "median_ms": 10.0},
        {"rank": 1, "node": 0, "host": "h", "median_ms": 12.5},
    ]
    row = {"batch_size": 16, "global_batch_size": 32, "ranks": ranks}
    parallel = {"parallel": "fsdp", "world_size": 2, "sharded_blocks": {"where": "blocks"}}
    arm = {"name": "aot_eager", "backend": "aot_eager", "results": [row]}
    return {"arms": [{**arm, "model": {"parallel": parallel}}]}


def test_the_straggler_view_names_the_slowest_rank_and_the_spread():
    (line,) = stragglers.text_lines(SessionModel.from_json(_ranked_session()))[1:]
    assert line == (
        "  aot_eager bs 16 / 32: 0: 10.00 ms, 1: 12.50 ms; spread 25.0%; slowest rank 1 (node 0, h)"
    )
    assert "| rank 1 (node 0, h) |" in "\n".join(
        straggler_section.markdown_lines(_ranked_session(), str)
    )
    assert (
        stragglers.text_lines(
            SessionModel.from_json({"arms": [{"name": "eager", "results": [{"ranks": None}]}]})
        )
        == []
    )


def test_the_reproducer_of_a_distributed_arm_wraps_as_its_ranks_did():
    arm = SessionModel.from_json(_ranked_session()).arms[0]
    block = reproduce._with_parallel(arm, "runner = torch.compile(model)")
    assert "torchrun --standalone --nproc-per-node 2 reproduce.py" in block
    assert "for block in model.get_submodule('blocks'):" in block
    assert block.index("fully_shard(model)") < block.index("runner = torch.compile(model)")


def test_the_method_notes_give_threads_per_rank_for_distributed_arms():
    config = {"threads": 2, "nproc": 2}
    rows = [{"batch_size": 8, "replicates": 1}]  # a row as saved: its batch size
    ranked = {"config": config, "schema_version": 3, "arms": [{"world_size": 2, "results": rows}]}
    assert (
        ", 1 thread per rank (2 ranks per node)"
        in method.method_notes(SessionModel.read(ranked))[0]
    )
    ranked["arms"].insert(0, {"world_size": 1, "results": rows})
    assert (
        ", 2 threads per arm, 1 thread per rank of a distributed arm"
        in (method.method_notes(SessionModel.read(ranked))[0])
    )
