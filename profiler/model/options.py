"""A saved session's run options (session.json's `config`), typed and read-only: what the
reports, the reproducer and the window (a saved run's plots laid out as a live run's, from its
warm-up, steps, rounds, device and script) read of them; the one typed reading of `config`.
`config` itself stays a raw mapping too (model/raw.py: the options as given; config/model.py's
RunConfig reads them back and checks them, which an old or hand-edited session may fail); this
is the tolerant reading, missing keys as None or the option's default meaning."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.config.script import DEFAULT_NO_STEP_TIMEOUT_S, ScriptSource
from tcprof.profiler.model.json_values import as_float, as_int, as_str


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _count(value: Any) -> int | None:
    """A count as sessions hold it: an int, or a float written by hand (3.0); else None."""
    number = as_float(value)
    return int(number) if number is not None else None


def _number(value: Any) -> float | int | None:
    """A JSON number as saved (600 stays 600, 600.0 stays 600.0); anything else None."""
    return value if as_float(value) is not None else None


@dataclass(frozen=True)
class Source:
    """The model file and what in it builds the model (a class, or a factory expression)."""

    path: str | None
    model: str | None
    factory: str | None
    input_shape: str | None

    @classmethod
    def of(cls, value: Any) -> Source:
        source = _map(value)
        return cls(
            as_str(source.get("path")),
            as_str(source.get("model")),
            as_str(source.get("factory")),
            as_str(source.get("input_shape")),
        )


def script_of(value: Any) -> ScriptSource | None:
    """A training script's run as saved (config/script.py's ScriptSource), read tolerantly: a
    value of the wrong type reads as the option's default, one saved without its path is still
    a script's run (path ""); no script (missing, empty): None, a model file's run."""
    if not isinstance(value, Mapping) or not value:
        return None
    return ScriptSource(
        path=as_str(value.get("path")) or "",
        args=tuple(str(a) for a in value.get("args") or ()),
        module=as_str(value.get("module")),
        cwd=as_str(value.get("cwd")) or ".",
        python=as_str(value.get("python")) or "python",
        step_on=as_str(value.get("step_on")) or "optimizer",
        sweep=as_str(value.get("sweep")),
        no_step_timeout_s=as_float(value.get("no_step_timeout_s")) or DEFAULT_NO_STEP_TIMEOUT_S,
        unit=as_str(value.get("unit")),
    )


@dataclass(frozen=True)
class DebugFlags:
    """The debug settings each compiled arm's worker applied."""

    logs: tuple[str, ...]
    verbose: bool
    suppress_errors: bool
    fail_on_recompile: bool
    given: bool = True  # False: the session saved no debug settings (shown as not said)

    @classmethod
    def of(cls, value: Any) -> DebugFlags:
        debug = _map(value)
        return cls(
            tuple(str(a) for a in debug.get("logs") or ()),
            bool(debug.get("verbose")),
            bool(debug.get("suppress_errors")),
            bool(debug.get("fail_on_recompile")),
            bool(debug),
        )


@dataclass(frozen=True)
class RunOptions:
    """The options a session ran with, as its reports, its reproducer and the window read them
    (`warmup`, `steps`, `replicates`: None where not said; `script`: None for a model file)."""

    source: Source
    script: ScriptSource | None
    debug: DebugFlags
    batch_sizes: tuple[int, ...]
    warmup: int | None
    steps: int | None
    blocks: int | None
    replicates: int | None
    seed: int | None
    threads: int | None
    lr: float | None
    optimizer: str | None
    device: str | None
    loop: str | None
    amp: str | None
    channels_last: bool
    compile_optimizer: bool
    weights: str | None
    host: str | None
    remote_python: str | None
    nproc: int | None
    accuracy: bool  # the untimed accuracy check ran (sessions without the key: it did)
    artifacts_dir: str | None
    min_block_ms: float | None = None  # a measured block's least length (None: not said)
    accuracy_rtol: float | None = None  # None: the dtype's default tolerance
    accuracy_atol: float | None = None
    control: bool = False  # an A/A control arm was asked for
    added_arms: int = 0  # arms added by --apply-advice after the main rounds
    sequential: bool = False  # each arm's blocks in turn, not interleaved
    timeout_s: float | int | None = None  # a worker's time limit as saved (None: none)

    @classmethod
    def of(cls, value: Any) -> RunOptions:
        config = _map(value)
        return cls(
            source=Source.of(config.get("source")),
            script=script_of(config.get("script")),
            debug=DebugFlags.of(config.get("debug")),
            batch_sizes=tuple(
                b for b in map(as_int, config.get("batch_sizes") or ()) if b is not None
            ),
            warmup=_count(config.get("warmup")),
            steps=_count(config.get("steps")),
            blocks=as_int(config.get("blocks")),
            replicates=_count(config.get("replicates")),
            seed=as_int(config.get("seed")),
            threads=as_int(config.get("threads")),
            lr=as_float(config.get("lr")),
            optimizer=as_str(config.get("optimizer")),
            device=as_str(config.get("device")),
            loop=as_str(config.get("loop")),
            amp=as_str(config.get("amp")),
            channels_last=bool(config.get("channels_last")),
            compile_optimizer=bool(config.get("compile_optimizer")),
            weights=as_str(config.get("weights")),
            host=as_str(config.get("host")),
            remote_python=as_str(config.get("remote_python")),
            nproc=as_int(config.get("nproc")),
            accuracy=bool(config.get("accuracy", True)),
            artifacts_dir=as_str(config.get("artifacts_dir")),
            min_block_ms=as_float(config.get("min_block_ms")),
            accuracy_rtol=as_float(config.get("accuracy_rtol")),
            accuracy_atol=as_float(config.get("accuracy_atol")),
            control=bool(config.get("control")),
            added_arms=len(config.get("added_arms") or ()),
            sequential=bool(config.get("sequential")),
            timeout_s=_number(config.get("timeout_s")),
        )
