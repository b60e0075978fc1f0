"""torch.compile's backends in groups, each with one line saying what it is for.

`torch._dynamo.list_backends(exclude_tags=())` (from a worker: this module never imports torch)
mixes the backend a user wants with debugging aids and torch's own test fixtures. The arm dialog
shows them grouped so that a first-time user picks `inductor` and knows what `aot_eager` is for.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

RECOMMENDED = "recommended"
DEBUG = "debug"
TESTING = "testing"
OTHER = "other"
GROUPS = (RECOMMENDED, DEBUG, OTHER, TESTING)  # the order the dialog shows them in
GROUP_TITLES = {RECOMMENDED: "Recommended", DEBUG: "Debug", OTHER: "Other", TESTING: "Testing"}
GROUP_DESCRIPTIONS = {
    RECOMMENDED: "what to measure",
    DEBUG: "to find which stage of torch.compile fails or is slow",
    OTHER: "other compilers, some needing packages of their own",
    TESTING: "fault injection and minifiers that test torch itself: not for measuring",
}

# name -> (group, description); names not here are OTHER with no description.
KNOWN: dict[str, tuple[str, str]] = {
    "inductor": (
        RECOMMENDED,
        "TorchInductor: fused Triton (GPU) or C++ (CPU) kernels; the default and usually fastest",
    ),
    "eager": (DEBUG, "no torch.compile: the model as written (the baseline)"),
    "aot_eager": (
        DEBUG,
        "Dynamo and AOTAutograd, run eagerly: a failure here is not Inductor's",
    ),
    "aot_eager_decomp_partition": (
        DEBUG,
        "aot_eager with Inductor's decompositions and partitioner: isolates those two stages",
    ),
    "aot_eager_default_partitioner": (
        DEBUG,
        "aot_eager with the default (not min-cut) partitioner",
    ),
    "aot_eager_decomp_partition_with_mode": (
        DEBUG,
        "aot_eager_decomp_partition run under a dispatch mode",
    ),
    "eager_debug": (DEBUG, "Dynamo's graph run eagerly, checking operator schemas"),
    "eager_noexcept": (DEBUG, "Dynamo's graph run eagerly, raising on any exception in it"),
    "pre_dispatch_eager": (DEBUG, "Dynamo's graph traced before dispatch, run eagerly"),
    "cudagraphs": (OTHER, "CUDA graphs without Inductor: less launch overhead, no fusion"),
    "ts": (OTHER, "TorchScript (deprecated)"),
    "aot_ts": (OTHER, "AOTAutograd into TorchScript (deprecated)"),
    "openxla": (OTHER, "XLA through torch_xla (needs torch_xla)"),
    "openxla_eval": (OTHER, "XLA through torch_xla, inference only (needs torch_xla)"),
    "tvm": (OTHER, "Apache TVM (needs tvm)"),
    "aot_eager_decomp_partition_crossref": (
        TESTING,
        "aot_eager_decomp_partition checked against eager op by op (FakeTensor crossref)",
    ),
    "dynamo_minifier_backend": (TESTING, "the minifier's backend: shrinks a failing graph"),
    "dynamo_accuracy_minifier_backend": (
        TESTING,
        "the accuracy minifier's backend: shrinks a graph whose results differ",
    ),
    "invoke_subgraph": (TESTING, "torch's internal backend for invoke_subgraph regions"),
}


@dataclass(frozen=True)
class Backend:
    name: str
    group: str
    description: str  # empty for a backend this table does not know


def describe_backend(name: str) -> Backend:
    if name in KNOWN:
        group, description = KNOWN[name]
        return Backend(name, group, description)
    if name.endswith("_TESTING_ONLY") or "minifier" in name or name.endswith("_crossref"):
        return Backend(name, TESTING, "fault injected on purpose, to test torch.compile itself")
    return Backend(name, OTHER, "")


def group_backends(names: list[str] | tuple[str, ...]) -> list[tuple[str, list[Backend]]]:
    """(group, backends) in GROUPS order, empty groups left out; within a group the table's
    order for known names, then the others alphabetically."""
    order = {name: i for i, name in enumerate(KNOWN)}
    backends = [describe_backend(n) for n in dict.fromkeys(names)]
    grouped = []
    for group in GROUPS:
        members = [b for b in backends if b.group == group]
        members.sort(key=lambda b: (order.get(b.name, len(order)), b.name))
        if members:
            grouped.append((group, members))
    return grouped


def unknown_backend(name: str, known: Iterable[str]) -> str:
    """One line for a backend torch does not know: the nearest name when one is near (a
    typo), else the list to choose from."""
    names = sorted(set(known))
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        return f"unknown torch.compile backend {name!r}: did you mean {close[0]!r}?"
    return f"unknown torch.compile backend {name!r}; available: {', '.join(names)}"
