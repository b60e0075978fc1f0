"""Regional compilation: the repeated block found once for every feature, compiled in place,
and weighed against the whole-model arm beside it."""

from __future__ import annotations

import pytest
import torch.nn as nn

from tcprof.profiler.analysis.regional import regional_tradeoffs, tradeoff
from tcprof.profiler.config import ConfigError, parse_arms
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tcprof.profiler.worker.blocks import NoRepeatedBlock, find_repeated_blocks
from tests.profiler.report.test_reproduce import LOSS, run_script
from tests.support.cli import FAST_CHECKED, run_cli


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.ModuleList([nn.Linear(4, 4)])
        self.body = nn.Sequential(nn.ModuleList([Block() for _ in range(3)]))
        self.head = nn.Linear(4, 1)


def test_the_largest_module_list_holds_the_repeated_block():
    found = find_repeated_blocks(Net())
    assert found.describe() == {"class": "Block", "count": 3, "where": "body.0"}


def test_a_named_class_gives_its_outermost_instances():
    found = find_repeated_blocks(Net(), "Block")
    assert found.describe() == {"class": "Block", "count": 3, "where": None}
    inner = find_repeated_blocks(Net(), "Inner")
    assert inner.describe()["count"] == 3


def test_no_repeated_block_says_what_to_do():
    with pytest.raises(NoRepeatedBlock, match="--block-module NAME"):
        find_repeated_blocks(nn.Sequential(nn.Linear(2, 2)))
    with pytest.raises(NoRepeatedBlock, match="its classes: .*Linear"):
        find_repeated_blocks(nn.Sequential(nn.Linear(2, 2)), "Block")


def test_regional_is_an_arm_option_of_compiled_arms_only():
    whole, regional = parse_arms("aot_eager; aot_eager:regional=true")
    assert not whole.regional and regional.regional
    assert regional.name == "aot_eager(regional)"
    with pytest.raises(ConfigError, match="need a compile backend"):
        parse_arms("eager:regional=true")


@pytest.mark.parametrize(
    ("regional", "whole", "expected"),
    [
        ((2.0, 5.0), (10.0, 4.0), ("regional for shorter runs", 8.0, 1.0, 8001)),
        ((2.0, 3.0), (10.0, 4.0), ("regional wins", 8.0, -1.0, None)),
        ((12.0, 5.0), (10.0, 4.0), ("whole wins", -2.0, 1.0, None)),
        ((12.0, 3.0), (10.0, 4.0), ("regional for longer runs", -2.0, -1.0, 2001)),
    ],
)
def test_the_tradeoff_per_batch_size(regional, whole, expected):
    def row(c, ms):
        return Row.of("", {"batch_size": 8, "compile_cold_s": c, "median_ms": ms}, False)

    got = tradeoff(row(*regional), row(*whole))
    assert (
        got["verdict"],
        got["compile_saved_s"],
        got["step_ms_lost"],
        got["break_even_steps"],
    ) == expected


def test_only_twins_are_paired():
    config = {"arms": [{"backend": "inductor"}, {"backend": "aot_eager", "regional": True}]}
    arms = [
        {"index": 0, "name": "inductor", "results": [{"batch_size": 8}]},
        {"index": 1, "name": "aot_eager(regional)", "results": [{"batch_size": 8}]},
    ]
    assert regional_tradeoffs(SessionModel.from_json({"config": config, "arms": arms})) == []


@pytest.mark.slow
def test_regional_against_whole_on_the_gpt_example(tmp_path):
    rc, stdout, stderr, s = run_cli(
        ["--example", "tiny_gpt", "--arms", "aot_eager; aot_eager:regional=true"]
        + ["--batch-sizes", "2", *FAST_CHECKED],
        tmp_path / "run",
    )
    assert rc == 0, stdout + stderr
    whole, regional = s["arms"]
    assert whole["model"]["regional"] is None
    assert regional["model"]["regional"] == {"class": "Block", "count": 2, "where": "blocks"}
    # the accuracy check compiles the blocks as the arm did, and they match eager
    assert regional["results"][0]["accuracy"]["status"] == "pass"
    assert all(r["steps"] > 0 for a in s["arms"] for r in a["results"])
    (row,) = s["regional"]
    assert row["regional"] == "aot_eager(regional)" and row["whole"] == "aot_eager"
    assert isinstance(row["compile_saved_s"], float) and isinstance(row["step_ms_lost"], float)
    assert "Regional vs whole-model compile" in stdout
    assert "Regional vs whole-model compile" in render_markdown(SessionModel.read(s))
    assert 'id="regional"' in render_html(SessionModel.read(s))
    code = render_reproducer(SessionModel.read(s), "aot_eager(regional)")
    assert "for block in model.get_submodule('blocks'):" in code
    printed = run_script(code, tmp_path, "--steps", "2")
    assert abs(float(LOSS.search(printed).group(1)) - regional["results"][0]["first_loss"]) < 1e-5
