"""What TorchDynamo and Inductor decided: compiles, recompiles (with guard failures), graph
breaks (with the user's file and line), recompile-limit fallbacks, and DDPOptimizer's splits.

Structured sources first: `torch._dynamo.utils.get_compilation_metrics()` gives one record per
frame compile with its recompile reason and time breakdown; graph breaks come from the
`graph_breaks` log artifact's records, caught by a logging.Handler (not by scraping stderr).
CUDA graphs that `mode="reduce-overhead"` asked for and Inductor skipped come from the
`cudagraphs` artifact's "skipping cudagraphs due to ..." records and, since torch 2.13 counts a
skip without logging it when the graph has no CUDA tensor (a CPU run), from its
`cudagraph_skips` counter: an arm must never run without its graphs silently.
DDPOptimizer (a compiled DistributedDataParallel model) splits a frame's graph at gradient
bucket boundaries inside the backend; those are not user graph breaks and torch reports them
only in the `ddp_graphs` artifact (one record per split frame, a `---submod_N graph---` header
per subgraph), which is counted here and tied to its frame's compile by the compile id.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import sys
import sysconfig
from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
from torch._dynamo import utils as dynamo_utils

from tcprof.profiler.config import DebugOptions
from tcprof.profiler.worker.frames import internal

_GB_AT = re.compile(r"in user code at (.+):(\d+)\s*$")
_LIMIT_FN = re.compile(r"function: '([^']*)' \((.+):(\d+)\)")
_LIMIT_REASON = re.compile(r"last reason: (.+)")
_ALWAYS_CAPTURED = ("graph_breaks", "recompiles", "cudagraphs", "ddp_graphs")
_CUDAGRAPH_SKIP = "skipping cudagraphs due to"
_USER_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
DDP_GRAPHS_LOGGER = "torch._dynamo.backends.distributed.__ddp_graphs"
CUDAGRAPHS_LOGGER = "torch._inductor.cudagraph_utils.__cudagraphs"
_DDP_SUBGRAPH = re.compile(r"^---(submod_\d+) graph---$", re.MULTILINE)


class _Capture(logging.Handler):
    def __init__(self, watcher: CompileWatcher) -> None:
        super().__init__(logging.DEBUG)
        self.watcher = watcher

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "_tcprof_seen", False):  # caught on its own logger and an ancestor
            return
        record._tcprof_seen = True
        try:
            self.watcher._on_record(record)
        except Exception:  # never let insight break the user's run
            pass


class _DropUnrequested(logging.Filter):
    """torch prints enabled artifacts to stderr; print only the ones the user asked for."""

    def __init__(self, requested: set[str]) -> None:
        super().__init__()
        self.requested = requested

    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        if "__" not in name:
            return True
        artifact = name.rsplit("__", 1)[1]
        return artifact not in _ALWAYS_CAPTURED or artifact in self.requested


class CompileWatcher:
    def __init__(self, debug: DebugOptions, user_file: str | None) -> None:
        self.user_file = user_file
        self.graph_breaks: list[dict[str, Any]] = []
        self.fallbacks: list[dict[str, Any]] = []
        self.artifact_logs: list[dict[str, Any]] = []
        self.ddp_subgraphs: dict[str, int] = {}  # compile id -> DDPOptimizer's subgraphs
        self._requested = set(debug.logs)
        flags = {a: True for a in set(debug.logs) | set(_ALWAYS_CAPTURED)}
        set_logs: Callable[..., None] = torch._logging.set_logs  # artifacts named at run time
        set_logs(**flags)
        dropper = _DropUnrequested(self._requested)
        for handler in logging.getLogger("torch").handlers:
            handler.addFilter(dropper)
        logging.getLogger("torch._dynamo").addHandler(_Capture(self))
        logging.getLogger("torch._inductor").addHandler(_Capture(self))
        # its records do not reach torch._dynamo's handlers (seen on torch 2.13): its own
        logging.getLogger(DDP_GRAPHS_LOGGER).addHandler(_Capture(self))
        logging.getLogger(CUDAGRAPHS_LOGGER).addHandler(_Capture(self))  # likewise, to be sure
        if debug.verbose:
            torch._dynamo.config.verbose = True
        if debug.suppress_errors:
            torch._dynamo.config.suppress_errors = True
        dynamo_utils.clear_compilation_metrics()
        self.cudagraph_skips: list[dict[str, Any]] = []
        self._skips_counted = _cudagraph_skip_count()
        # what each compile found when it began (compile id -> its context), and who says
        # when it happened (a script run sets it: before training, step N, in evaluation)
        self.started: dict[str, dict[str, Any]] = {}
        self.context: Callable[[], dict[str, Any]] | None = None
        _on_compile_start(self._compile_started)

    def _compile_started(self, args: Any) -> None:
        """A frame compile begins (torch's start callback, on the compiling thread): its call
        site in the user's code, the grad mode, the shapes it was called with, and when."""
        try:
            if getattr(getattr(args, "callback_trigger", None), "name", "DYNAMO") != "DYNAMO":
                return
            info: dict[str, Any] = {"grad_mode": torch.is_grad_enabled()}
            info.update(call_site(sys._getframe(1)))
            if self.context is not None:
                info.update(self.context())
            self.started[str(getattr(args, "compile_id", None))] = info
        except Exception:  # never let insight break the user's run
            pass

    def _on_record(self, record: logging.LogRecord) -> None:
        name = record.name
        if _CUDAGRAPH_SKIP in record.getMessage():
            self.cudagraph_skips.append(parse_cudagraph_skip(record.getMessage(), self.user_file))
        elif name.endswith("__graph_breaks"):
            self.graph_breaks.append(parse_graph_break(record.getMessage()))
        elif name.endswith("__ddp_graphs"):
            subgraphs = count_ddp_subgraphs(record.getMessage())
            if subgraphs:
                compile_id = str(torch._guards.CompileContext.current_compile_id())
                self.ddp_subgraphs[compile_id] = subgraphs
        elif record.levelno >= logging.WARNING and "recompile_limit" in record.getMessage():
            hit = parse_limit_hit(record.getMessage())
            hit["limit"] = getattr(torch._dynamo.config, "recompile_limit", None)
            self.fallbacks.append(hit)
        if "__" in name:
            artifact = name.rsplit("__", 1)[1]
            if artifact in self._requested:
                self.artifact_logs.append({"artifact": artifact, "text": record.getMessage()})

    def take_compiles(self) -> list[dict[str, Any]]:
        """Compile records since the last call: one per forward frame, its lazy backward compile
        (`backward_s`) folded in."""
        records = dynamo_utils.get_compilation_metrics()
        dynamo_utils.clear_compilation_metrics()
        out: list[dict[str, Any]] = []
        backward: dict[str, float] = {}
        for rec in records:
            d = dataclasses.asdict(rec) if dataclasses.is_dataclass(rec) else dict(vars(rec))
            if not d.get("co_name"):
                # AOTAutograd compiles the backward lazily, at the first backward: torch
                # records it apart, with no frame, under the forward's compile id.
                if d.get("is_forward") is False and d.get("duration_us") is not None:
                    key = str(d.get("compile_id"))
                    backward[key] = backward.get(key, 0.0) + d["duration_us"] / 1e6
                continue
            out.append(
                {
                    "compile_id": d.get("compile_id"),
                    "frame": d.get("co_name"),
                    "file": d.get("co_filename"),
                    "line": d.get("co_firstlineno"),
                    "kind": "recompile" if d.get("recompile_reason") else "first",
                    "reason": d.get("recompile_reason"),
                    "seconds": d.get("entire_frame_compile_time_s"),
                    "backend_s": d.get("backend_compile_time_s"),
                    "inductor_s": d.get("inductor_compile_time_s"),
                    "code_gen_s": d.get("code_gen_time_s"),
                    "fx_cache_hits": d.get("inductor_fx_local_cache_hit_count"),
                    "fx_cache_misses": d.get("inductor_fx_local_cache_miss_count"),
                    "aot_cache_hits": d.get("aotautograd_local_cache_hit_count"),
                    "aot_cache_misses": d.get("aotautograd_local_cache_miss_count"),
                    "graph_ops": d.get("graph_op_count"),
                    "guards": d.get("guard_count"),
                    "ddp_subgraphs": self.ddp_subgraphs.pop(str(d.get("compile_id")), None),
                    "fail_type": d.get("fail_type"),
                    "fail_reason": d.get("fail_reason"),
                    "backward_s": None,
                }
            )
        for c in out:
            c["backward_s"] = backward.pop(str(c["compile_id"]), None)
            c.update(self.started.pop(str(c["compile_id"]), {}))
        return out

    def take_graph_breaks(self) -> list[dict[str, Any]]:
        out, self.graph_breaks = self.graph_breaks, []
        return out

    def take_fallbacks(self) -> list[dict[str, Any]]:
        out, self.fallbacks = self.fallbacks, []
        return out

    def take_cudagraph_skips(self, device_type: str) -> list[dict[str, Any]]:
        """CUDA graph skips since the last call: the logged ones with their reason, and those
        torch only counted (a graph with no CUDA tensor) with the reason tcprof knows."""
        logged, self.cudagraph_skips = self.cudagraph_skips, []
        counted = _cudagraph_skip_count()
        silent = counted - self._skips_counted - len(logged)
        self._skips_counted = counted
        if silent > 0:
            reason = (
                f"{device_type} device: the compiled graphs hold no CUDA tensor, and CUDA "
                "graphs capture CUDA work only"
                if device_type != "cuda"
                else "a reason torch counted without logging it"
            )
            logged.append({"reason": reason, "file": None, "line": None, "count": silent})
        return logged

    def take_artifact_logs(self) -> list[dict[str, Any]]:
        out, self.artifact_logs = self.artifact_logs, []
        return out


def _on_compile_start(callback: Callable[[Any], None]) -> None:
    """Register with torch's compile start callbacks (absent from an old torch: no context)."""
    try:
        from torch._dynamo.callback import callback_handler
    except ImportError:
        return
    callback_handler.register_start_callback(callback)


def call_site(frame: Any) -> dict[str, Any]:
    """Where the compiled code was called from: the innermost frame outside torch and tcprof
    (the user's line), and the tensor shapes of the innermost call on the way there that
    passed any (a module's `_call_impl` or tcprof's dispatcher: the compiled frame's inputs)."""
    shapes: list[list[int]] | None = None
    while frame is not None and (
        internal(frame.f_code.co_filename) or frame.f_code.co_filename.startswith(_STDLIB)
    ):
        if shapes is None:
            args = frame.f_locals.get("args") if frame.f_code.co_name != "_compile" else None
            if isinstance(args, tuple):
                found = [list(a.shape) for a in args if isinstance(a, torch.Tensor)]
                shapes = found or None
        frame = frame.f_back
    if frame is None:
        return {"site_file": None, "site_line": None, "shapes": shapes}
    return {"site_file": frame.f_code.co_filename, "site_line": frame.f_lineno, "shapes": shapes}


_STDLIB = tuple({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})
_WRAPPED = "Encountered graph break when attempting to trace"
_REASON_ENDS = ("Explanation:", "Hint:", "Developer debug context:", "For more details")


def _break_reason(first: str, rest: list[str]) -> str:
    """What broke the graph. torch 2.13 wraps the reason of a break inside a bytecode ("CALL: a
    function call, e.g. f(x, y):") around the real one, on the lines after it ("Unsupported
    Tensor.item() call with capture_scalar_outputs=False"): the innermost line is the reason."""
    reason = first
    for raw in rest:
        s = raw.strip()
        if not s:
            continue
        if s.startswith(_REASON_ENDS) or s == "User code traceback:":
            break
        if reason.startswith(_WRAPPED):
            reason = s
        else:
            break
    if reason.startswith(_WRAPPED):  # no inner reason given: the bytecode it was tracing
        reason = reason.removesuffix(":").split(" trace ", 1)[-1]
    return reason


def parse_graph_break(text: str) -> dict[str, Any]:
    lines = text.splitlines()
    file = line = None
    m = _GB_AT.search(lines[0]) if lines else None
    if m:
        file, line = m.group(1), int(m.group(2))
    reason = explanation = None
    hints = []
    for i, raw in enumerate(lines[1:], start=1):
        s = raw.strip()
        if s.startswith("Graph Break Reason:") and reason is None:
            reason = _break_reason(s.split(":", 1)[1].strip(), lines[i + 1 :])
        elif s.startswith("Explanation:") and explanation is None:
            explanation = s.split(":", 1)[1].strip()
        elif s.startswith("Hint:"):
            hints.append(s.split(":", 1)[1].strip())
    if reason is None:
        reason = lines[0] if lines else "graph break"
    return {
        "reason": reason,
        "explanation": explanation,
        "hints": hints,
        "file": file,
        "line": line,
        "text": text,
    }


def _cudagraph_skip_count() -> int:
    from torch._dynamo.utils import counters

    return int(counters["inductor"].get("cudagraph_skips", 0))


def parse_cudagraph_skip(text: str, user_file: str | None) -> dict[str, Any]:
    """ "skipping cudagraphs due to mutated inputs (1 instances). Found from : File ..." -> the
    reason and the first frame in the user's file (else the first frame given)."""
    reason = text.split(_CUDAGRAPH_SKIP, 1)[1].strip() if _CUDAGRAPH_SKIP in text else text
    reason = reason.split("Found from", 1)[0].strip().rstrip(".").strip()
    frames = [(f, int(n)) for f, n in _USER_FRAME.findall(text)]
    mine = [fr for fr in frames if user_file and fr[0] == user_file]
    file, line = (mine or frames)[0] if frames else (None, None)
    return {"reason": reason or "unknown", "file": file, "line": line, "count": 1}


def count_ddp_subgraphs(text: str) -> int:
    """The subgraphs of one DDPOptimizer split (its `ddp_graphs` record that lists the
    split graph's submodules); 0 for its other records (the final graph)."""
    if "---split graph---" not in text:
        return 0
    return len(set(_DDP_SUBGRAPH.findall(text)))


def parse_limit_hit(text: str) -> dict[str, Any]:
    fn = _LIMIT_FN.search(text)
    last = _LIMIT_REASON.search(text)
    return {
        "frame": fn.group(1) if fn else None,
        "file": fn.group(2) if fn else None,
        "line": int(fn.group(3)) if fn else None,
        "reason": last.group(1).strip() if last else text.splitlines()[0],
    }
