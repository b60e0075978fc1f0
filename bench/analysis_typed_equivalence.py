"""analysis/ over the typed model (issue 40, item 3, third sitting) says exactly what the
dict-based modules it replaced said (read from git at OLD_COMMIT): the advice of every arm, the
regional tradeoffs, the ladder summary, the straggler view, the profile check and the timeline
rebuilt from each session's own events.jsonl. The truth is the old implementation; a difference
is printed with its session.

Inputs: saved sessions found under the folders given (each session.json, and its events.jsonl
for the timeline), plus fuzzed ones: recompiles of every guard kind (sizes, Python numbers,
`___stackN`, grad mode with the compiles list it needs), fallbacks, library graph breaks,
skipped CUDA graphs, regional twins, ladders, distributed ranks.

Rerun: `PYTHONPATH=. .venv/bin/python -m bench.analysis_typed_equivalence [N_FUZZED] [FOLDER ...]`
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tcprof.profiler.analysis import advice, ladder, profile_check, regional, stragglers, timeline
from tcprof.profiler.config import DYNAMO_EAGER
from tcprof.profiler.folders.files import iter_events
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.session.marks import timeline_mark
from tests.support.synthetic import eval_first_session, synthetic_session

OLD_COMMIT = "f151a34"  # main before analysis/ read the typed model (third sitting)
ROOT = Path(__file__).resolve().parent.parent
_OLD = Path(tempfile.mkdtemp())
_RENAMED = {
    "tcprof.profiler.analysis.user_words": "old_user_words",
    "tcprof.profiler.analysis.rank_compiles": "old_rank_compiles",
}


def _old(name: str) -> Any:
    """analysis/NAME.py as it was at OLD_COMMIT, importing the old siblings it used."""
    text = subprocess.run(
        ["git", "show", f"{OLD_COMMIT}:profiler/analysis/{name}.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for new, old in _RENAMED.items():
        text = text.replace(f"from {new} import", f"from {old} import")
    path = _OLD / f"old_{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"old_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"old_{name}"] = module
    spec.loader.exec_module(module)
    return module


OLD = {n: _old(n) for n in ("user_words", "rank_compiles")}
OLD |= {n: _old(n) for n in ("advice", "timeline", "ladder", "regional", "stragglers")}
OLD["profile_check"] = _old("profile_check")

REASONS = [
    "0/0: tensor 'args[0]' size mismatch at index 0. expected 8, actual 16",
    "0/1: tensor 'args[0]' size mismatch at index 0. expected 16, actual 32",
    "0/2: tensor 'L['x']' size mismatch at index 1. expected 128, actual 256",
    "1/1: self.step == 1                  # self.step += 1  # m.py:11 in forward (HINT: make "
    "this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True)\n",
    "1/0: t == 0.5                        # return x * t  # m.py:12",
    "1/2: ___stack0 == 3",
    "2/0: L['self'].training == False",
    "0/3: GLOBAL_STATE changed: grad_mode ",
    "0/4: ___check_obj_id(L['self'].fc, 140)",
    "",
    None,
]
FRAMES = ["forward", "torch_dynamo_resume_in_forward_at_14", None]
FILES = ["m.py", "/env/lib/python3.11/site-packages/transformers/x.py", None]


def _recompile(rng: random.Random) -> dict[str, Any]:
    rc: dict[str, Any] = {
        "batch_size": rng.choice([4, 8, 16, 32, None]),
        "step": rng.choice([0, 3, None]),
        "reason": rng.choice(REASONS),
        "frame": rng.choice(FRAMES),
        "file": rng.choice(FILES),
        "line": rng.choice([10, 14, None]),
        "seconds": rng.choice([0.5, None]),
    }
    for key, values in (
        ("when", ["before_training", "evaluation", "step", None]),
        ("at_step", [0, 4, None]),
        ("grad_mode", [True, False, None]),
        ("site_file", ["/s/train.py", None]),
        ("site_line", [30, 40]),
    ):
        if rng.random() < 0.7:
            rc[key] = rng.choice(values)
    return rc


def _fuzzed_arm(rng: random.Random, arm: dict[str, Any]) -> None:
    """Recompiles, compiles lists, fallbacks, graph breaks, skips and ranks on one arm."""
    recompiles = [_recompile(rng) for _ in range(rng.randint(0, 8))]
    arm["recompiles"] = recompiles
    arm["backend"] = rng.choice(["inductor", "aot_eager", "eager"])
    arm["options"] = {"dynamic": rng.choice([None, True, False]), "mode": rng.choice([None, "x"])}
    for row in arm.get("results") or []:
        listed = [{**c, "kind": rng.choice(["first", "recompile"])} for c in recompiles]
        row["compiles_list"] = [*(_recompile(rng) for _ in range(2)), *listed]
        rng.shuffle(row["compiles_list"])
        if rng.random() < 0.3:
            row["ranks"] = [
                {
                    "rank": r,
                    "node": rng.choice([0, 1]),
                    "host": rng.choice(["a", None]),
                    "median_ms": rng.choice([10.0 + r, None, 12.0]),
                    **(
                        {
                            "graphs": rng.choice([1, 2]),
                            "recompiles": rng.choice([0, 1]),
                            "recompile_reasons": ["size"],
                            "graph_breaks": rng.choice([0, 1]),
                            "guards": rng.choice([None, 4]),
                            "ddp_splits": rng.choice([0, 2]),
                            "compile_s": rng.choice([1.5, None]),
                        }
                        if rng.random() < 0.7
                        else {}
                    ),
                }
                for r in range(rng.randint(1, 4))
            ]
        if rng.random() < 0.3:
            row["profile"] = {
                "step_ms": rng.choice([3.0, 10.0, 40.0, None]),
                "quiet": rng.choice([True, False, None]),
                "top_ops": [{"self_ms_per_step": rng.choice([1.0, 30.0, None])}],
            }
    arm["fallbacks"] = [
        {
            "frame": rng.choice(FRAMES),
            "file": "m.py",
            "line": 3,
            "batch_size": rng.choice([8, None]),
        }
        for _ in range(rng.randint(0, 2))
    ]
    arm["graph_breaks"] = [
        {"file": rng.choice(FILES), "line": 300, "reason": "x", "hints": ["h"][: rng.randint(0, 1)]}
        | ({"count": 2} if rng.random() < 0.5 else {})
        for _ in range(rng.randint(0, 2))
    ]
    arm["cudagraph_skips"] = [
        {
            "batch_size": rng.choice([8, None]),
            "reason": rng.choice(["mutated", None]),
            "file": "m.py",
        }
        | ({"count": 3, "line": 4} if rng.random() < 0.5 else {})
        for _ in range(rng.randint(0, 2))
    ]


def _fuzzed(rng: random.Random) -> dict[str, Any]:
    """A synthetic session with regional twins or a ladder, and fuzzed arms."""
    kind = rng.choice(["plain", "regional", "ladder"])
    if kind == "ladder":
        backends = ["eager", DYNAMO_EAGER, "aot_eager", "inductor"][: rng.randint(2, 4)]
        arms = [{"backend": b} for b in backends]
    elif kind == "regional":
        arms = [
            {"backend": "eager"},
            {"backend": "inductor"},
            {"backend": "inductor", "regional": True},
        ]
    else:
        arms = [{"backend": "eager"}, {"backend": "inductor"}]
    from tcprof.profiler.config import ArmSpec

    doc = synthetic_session(
        arms=tuple(ArmSpec.from_dict(a) for a in arms), batch_sizes=(8, 16)[: rng.randint(1, 2)]
    )
    doc["config"]["arms"] = arms
    doc["config"]["ladder"] = kind == "ladder"
    for arm in doc["arms"]:
        for row in arm.get("results") or []:
            row["compile_cold_s"] = rng.choice([2.0, 10.0, None])
            row["compile_s"] = rng.choice([3.0, 0.0, None])
            row["fell_back"] = rng.random() < 0.2
            row["accuracy"] = rng.choice(
                [None, {"status": "pass"}, {"status": "fail", "worst": {"name": "output"}}]
            )
        if rng.random() < 0.9:
            _fuzzed_arm(rng, arm)
    return doc


def _sizes(doc: dict[str, Any]) -> list[int]:
    return [int(b) for b in (doc.get("config") or {}).get("batch_sizes") or []]


def compare(doc: dict[str, Any], events: list[dict[str, Any]] | None) -> list[str]:
    """What the old and the new analysis say differently of one session (empty: nothing)."""
    out = []
    model = SessionModel.from_json(doc)
    sizes = _sizes(doc)
    for raw, arm in zip(doc.get("arms") or [], model.arms, strict=False):
        old = OLD["advice"].arm_advice(copy.deepcopy(raw), sizes, "m.py", 8)
        if advice.arm_advice(Arm.of(raw, False, None), sizes, "m.py", 8) != old:
            out.append(f"advice of {arm.name} (dict)")
        if advice.arm_advice(arm, sizes, "m.py", 8) != old:
            out.append(f"advice of {arm.name} (typed)")
        for row, typed in zip(raw.get("results") or [], arm.rows, strict=False):
            if isinstance(row.get("profile"), dict):
                said = OLD["profile_check"].profile_mismatch(row["profile"], row.get("median_ms"))
                if profile_check.profile_mismatch(typed.profile, typed.median_ms) != said:
                    out.append(f"profile check of {arm.name} bs {typed.batch_size}")
    pairs = [
        ("regional", OLD["regional"].regional_tradeoffs, regional.regional_tradeoffs),
        ("ladder", OLD["ladder"].ladder_summary, ladder.ladder_summary),
        ("ranks", OLD["stragglers"].text_lines, stragglers.text_lines),
    ]
    for name, old_f, new_f in pairs:
        want = old_f(copy.deepcopy(doc))
        if new_f(model) != want:  # the doors take the model only
            out.append(name)
    saved = {**doc, "regional": OLD["regional"].regional_tradeoffs(copy.deepcopy(doc))}
    if OLD["regional"].text_lines(saved) != regional.text_lines(SessionModel.from_json(saved)):
        out.append("regional lines")
    if events is not None:
        names = [a.name for a in model.arms]
        old_marks = [m for m in map(OLD["timeline"].timeline_mark, events) if m]
        new_marks = [m for m in map(timeline_mark, events) if m]
        want = OLD["timeline"].build_timeline(old_marks, names)
        if json.dumps(timeline.build_timeline(new_marks, names)) != json.dumps(want):
            out.append("timeline")
    return out


def main(argv: list[str]) -> int:
    fuzzed = int(argv[0]) if argv else 200
    folders = [Path(a) for a in argv[1:]]
    rng = random.Random(40)
    checked = differing = marks = 0
    docs: list[tuple[str, dict[str, Any], list[dict[str, Any]] | None]] = [
        ("eval_first", eval_first_session(), None)
    ]
    docs += [(f"fuzzed {i}", _fuzzed(rng), None) for i in range(fuzzed)]
    for folder in folders:
        for path in sorted(folder.rglob("session.json")):
            if not path.is_file():  # the tests' fifos and links
                continue
            try:
                doc = json.loads(path.read_text())
            except (OSError, ValueError, RecursionError):  # the tests' deliberately bad files
                continue
            if not isinstance(doc, dict) or not isinstance(doc.get("arms"), list):
                continue
            log = path.parent / "events.jsonl"
            events = list(iter_events(log)) if log.is_file() else None
            docs.append((str(path.parent), doc, events))
    for name, doc, events in docs:
        checked += 1
        marks += events is not None
        try:
            said = compare(doc, events)
        except Exception as e:  # noqa: BLE001 - said with its session, then counted
            said = [f"{type(e).__name__}: {e}"]
        if said:
            differing += 1
            print(f"{name}: {', '.join(said)}")
    print(f"{checked} sessions ({marks} with their event log), {differing} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
