"""A saved setup (the panel's own state in the preferences, or a session's config), read once
at the raw edge into typed cells that the sub-editors' `set_options` read by attribute.

Each cell is one RunConfig field: its type is the one RunConfig declares (a value of another
type is not taken, but kept as text to be quoted where the panel names what did not fit), and
whether it was saved at all (a setup without it means the field's default, an explicit null
"auto" for some). The cells' names are RunConfig's (tests/app/setup/test_saved_setup.py holds
them to it); a restore never raises, so neither does `SavedSetup.of`."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tcprof.profiler.config import CONTROLS, ArmSpec, DebugOptions, ModelSource, RunConfig
from tcprof.profiler.config.controls import normalize_control
from tcprof.profiler.config.script import (
    BATCH_SIZE,
    DEFAULT_NO_STEP_TIMEOUT_S,
    STEP_ON,
    ScriptSource,
)

T = TypeVar("T")

_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "str": (str,),
    "None": (type(None),),
}
RUN_FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}


def fits(field: dataclasses.Field[Any], value: object) -> bool:
    """Whether value has the field's declared type (a saved file may hold anything)."""
    names = [name.strip() for name in str(field.type).split("|")]
    if any(name not in _TYPES for name in names):
        return True  # a type this check does not know: let RunConfig judge
    allowed = [_TYPES[name] for name in names]
    if isinstance(value, bool) and bool not in [t for ts in allowed for t in ts]:
        return False
    return any(isinstance(value, ts) for ts in allowed)


@dataclass(frozen=True)
class Saved(Generic[T]):
    """One field as saved. `value`: the saved value when it has the declared type (else
    None); `fits`: it had that type (null included where the type allows it); `null`: saved
    as null; `quoted`: the saved value as a message names it ("nproc=x"); `number`: the saved
    value when it is a number of any type (not a bool), for what a field clamped or rounded."""

    given: bool = False
    value: T | None = None
    fits: bool = False
    null: bool = False
    quoted: str = ""
    number: float | None = None

    def read(self, default: T) -> T | None:
        """The value; `default` when the setup did not save it; None when it does not fit."""
        return default if not self.given else self.value if self.fits else None


def _cell(state: Mapping[str, object], name: str) -> Saved[Any]:
    if name not in state:
        return Saved()
    raw = state[name]
    ok = fits(RUN_FIELDS[name], raw)
    return Saved(True, raw if ok else None, ok, raw is None, str(raw), _number(raw))


def _parsed(state: Mapping[str, object], name: str, parse: Any) -> Saved[Any]:
    """A nested value (the model's source, the arms, the debug options): parsed here, or not
    taken when it does not parse."""
    if name not in state:
        return Saved()
    raw = state[name]
    try:
        value = parse(raw)
    except (TypeError, ValueError, AttributeError):
        value = None
    return Saved(True, value, value is not None, raw is None, str(raw), _number(raw))


def _trusted(state: Mapping[str, object], name: str) -> Saved[bool]:
    """The user's word, saved by the panel: true only when it is exactly true."""
    raw = state.get(name)
    return Saved(name in state, raw is True, True, raw is None, str(raw))


def _number(raw: object) -> float | None:
    return float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None


def _source(raw: object) -> ModelSource | None:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("path"), str):
        return None
    source = ModelSource(**raw)
    texts = (source.model, source.factory, source.input_shape)
    return source if all(t is None or isinstance(t, str) for t in texts) else None


def _arms(raw: object) -> tuple[ArmSpec, ...] | None:
    if not isinstance(raw, (list, tuple)):
        return None
    return tuple(ArmSpec.from_dict(a) for a in raw) or None


def _debug(raw: object) -> DebugOptions:
    options = dict(raw or {})  # type: ignore[call-overload]
    options["logs"] = tuple(options.get("logs") or ())
    return DebugOptions(**options)


def _batch_sizes(raw: object) -> str | None:
    """The Batch sizes field's text: as typed (the panel's state), or a session's list."""
    if isinstance(raw, list):
        return ", ".join(str(b) for b in raw)
    return raw if isinstance(raw, str) else None


def _control(raw: object) -> str | None:
    """A session's A/A control; before schema 3 a bool. ValueError when it is none of these."""
    if raw is True or raw is False or raw is None or raw in CONTROLS:
        return normalize_control(raw) or ""
    raise ValueError(raw)


def args_text(args: tuple[str, ...] | list[str]) -> str:
    """The arguments as the Arguments field shows them: quoted only where a shell would need
    it (so --batch_size={batch_size} stays as typed), splitting back to the same words."""
    return " ".join(a if a and shlex.split(a) == [a] else shlex.quote(a) for a in args)


@dataclass(frozen=True)
class ScriptFields:
    """The Script box as saved: the script and its fields as typed (the per-script memory, the
    panel's state; `cwd` None: the script's folder), or a session's ScriptSource shown in them
    (`session`: it runs only after the user's word, model_consent.py)."""

    path: str
    args: str = ""
    cwd: str | None = None
    sweep: str = ""
    step_on: str = STEP_ON[0]
    no_step_timeout_s: float = DEFAULT_NO_STEP_TIMEOUT_S
    session: bool = False

    @classmethod
    def of(cls, raw: Mapping[str, object], path: str) -> ScriptFields:
        """The panel's own form, tolerantly: a value of the wrong type takes the default."""
        args, cwd, sweep = (raw.get(key) for key in ("args", "cwd", "sweep"))
        step_on, timeout = raw.get("step_on"), raw.get("no_step_timeout_s")
        number = _number(timeout)
        return cls(
            path,
            args if isinstance(args, str) else "",
            cwd if isinstance(cwd, str) else None,
            sweep if isinstance(sweep, str) else "",
            step_on if isinstance(step_on, str) and step_on in STEP_ON else STEP_ON[0],
            number if number is not None and number > 0 else DEFAULT_NO_STEP_TIMEOUT_S,
        )

    @classmethod
    def of_session(cls, source: ScriptSource, batch_sizes: object) -> ScriptFields:
        """A session's script: its arguments as one line, its sweep's values from the
        session's batch sizes (the phases' values)."""
        sweep = ""
        if source.sweep and source.sweep != BATCH_SIZE and isinstance(batch_sizes, list):
            sweep = f"{source.sweep}={','.join(str(b) for b in batch_sizes)}"
        fields = cls.of(
            {"step_on": source.step_on, "no_step_timeout_s": source.no_step_timeout_s}, source.path
        )
        return cls(
            source.path,
            args_text(source.args),
            source.cwd,
            sweep,
            fields.step_on,
            fields.no_step_timeout_s,
            session=True,
        )


def _script(state: Mapping[str, object]) -> ScriptFields | None:
    """The script of a setup: a session's ScriptSource (it names its python or lists its
    arguments) or the panel's own fields; None without a path."""
    raw = state["script"]
    if not isinstance(raw, Mapping) or not isinstance(path := raw.get("path"), str):
        return None
    if "python" in raw or isinstance(raw.get("args"), list):
        return ScriptFields.of_session(ScriptSource.from_dict(dict(raw)), state.get("batch_sizes"))
    return ScriptFields.of(raw, path)


_PARSE = {
    "source": _source,
    "arms": _arms,
    "debug": _debug,
    "batch_sizes": _batch_sizes,
    "control": _control,
}


@dataclass(frozen=True)
class SavedSetup:
    """The fields the panel edits, as a saved setup holds them (see the module's docstring).
    `control`: "" for none (a cell's None means it did not fit)."""

    source: Saved[ModelSource]
    arms: Saved[tuple[ArmSpec, ...]]
    batch_sizes: Saved[str]
    warmup: Saved[int]
    steps: Saved[int]
    seed: Saved[int]
    profile_steps: Saved[int]
    save_weights: Saved[str]
    optimizer: Saved[str]
    lr: Saved[float]
    device: Saved[str]
    debug: Saved[DebugOptions]
    replicates: Saved[int]
    stop_early: Saved[bool]
    budget_s: Saved[float]
    control: Saved[str]
    threads: Saved[int]
    warm_cache: Saved[bool]
    portable_round: Saved[bool]
    accuracy: Saved[bool]
    stall_timeout_s: Saved[float]
    apply_advice: Saved[bool]
    loop: Saved[str]
    amp: Saved[str]
    channels_last: Saved[bool]
    compile_optimizer: Saved[bool]
    weights: Saved[str]
    block_module: Saved[str]
    host: Saved[str]
    nproc: Saved[int]
    parallel: Saved[str]
    nnodes: Saved[int]
    node_rank: Saved[int]
    rdzv_endpoint: Saved[str]
    rdzv_timeout_s: Saved[float]
    script: Saved[ScriptFields]
    # the panel's own keys: whether the user trusted the model file (saved with a script)
    model_file_trusted: Saved[bool]

    @classmethod
    def of(cls, state: Mapping[str, object]) -> SavedSetup:
        """The raw edge: a saved setup's JSON, each field read by RunConfig's declared type."""
        return cls(
            **{
                f.name: _parsed(state, f.name, _PARSE[f.name])
                if f.name in _PARSE
                else _cell(state, f.name)
                for f in dataclasses.fields(cls)
                if f.name not in ("script", "model_file_trusted")
            },
            script=_parsed(state, "script", lambda _raw: _script(state)),
            model_file_trusted=_trusted(state, "model_file_trusted"),
        )
