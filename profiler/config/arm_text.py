"""An arm as users type it (`inductor:mode=max-autotune,dynamic=false`), parsed into an
`ArmSpec` with one-line errors."""

from __future__ import annotations

import os
import re
from typing import Any

from tcprof.profiler.config.arm import ArmSpec
from tcprof.profiler.config.choices import PARALLEL, ConfigError


def parse_arms(text: str) -> tuple[ArmSpec, ...]:
    """Shorthand 'eager,inductor,aot_eager' or long form with per-arm options:
    'eager; inductor:mode=max-autotune,dynamic=false; aot_eager:fullgraph=true,label=aot'.

    Arms are separated by ';', or by ',' (an option after an arm's ':' stays with that arm)."""
    text = text.strip()
    if not text:
        raise ConfigError("give at least one arm, e.g. --arms eager,inductor")
    if ";" in text:
        chunks = [c.strip() for c in text.split(";")]
    else:  # commas separate arms, except inside an arm's options: 'eager,inductor:mode=x,dynamic=false'
        chunks = []
        for token in (t.strip() for t in text.split(",")):
            if "=" in token and ":" not in token and chunks:
                chunks[-1] += "," + token
            else:
                chunks.append(token)
    arms = []
    for chunk in chunks:
        if chunk:
            arms.append(parse_arm(chunk))
    if not arms:
        raise ConfigError("give at least one arm, e.g. --arms eager,inductor")
    return tuple(arms)


def parse_arm(text: str) -> ArmSpec:
    backend, _, opts = text.partition(":")
    backend = backend.strip()
    if not re.fullmatch(r"[A-Za-z_][\w.\-]*", backend):
        raise ConfigError(f"arm {text!r}: {backend!r} is not a backend name")
    kwargs: dict[str, Any] = {}
    for item in [o.strip() for o in opts.split(",") if o.strip()]:
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            raise ConfigError(f"arm {text!r}: option {item!r} should be key=value")
        if key == "mode":
            kwargs["mode"] = value
        elif key == "dynamic":
            kwargs["dynamic"] = _parse_tristate(value, text)
        elif key == "fullgraph":
            kwargs["fullgraph"] = bool(_parse_tristate(value, text))
        elif key in ("label", "name"):
            kwargs["label"] = value
        elif key == "regional":
            kwargs["regional"] = bool(_parse_tristate(value, text))
        elif key == "parallel":
            if value not in PARALLEL:
                raise ConfigError(
                    f"arm {text!r}: parallel is one of {', '.join(PARALLEL)}, not {value!r}"
                )
            kwargs["parallel"] = value
        elif key == "python":
            if not value:
                raise ConfigError(
                    f"arm {text!r}: python= names an interpreter, e.g. python=/opt/torch214/bin/python"
                )
            kwargs["python"] = interpreter_path(value)
        elif key == "mark_dynamic":
            if not value.isdigit():
                raise ConfigError(
                    f"arm {text!r}: mark_dynamic takes a dimension, e.g. mark_dynamic=0"
                )
            kwargs["mark_dynamic"] = int(value)
        else:
            raise ConfigError(
                f"arm {text!r}: unknown option {key!r} "
                "(mode, dynamic, fullgraph, regional, mark_dynamic, parallel, python, label)"
            )
    if (kwargs.get("regional") or "mark_dynamic" in kwargs) and backend == "eager":
        raise ConfigError(f"arm {text!r}: regional and mark_dynamic need a compile backend")
    return ArmSpec(backend=backend, **kwargs)


def interpreter_path(value: str) -> str:
    """A path as typed, made absolute (`~` too) so the session records where it was; a bare
    name (`python3.12`) is looked up on PATH when the arm starts."""
    expanded = os.path.expanduser(value)
    return os.path.abspath(expanded) if os.sep in expanded else expanded


def _parse_tristate(value: str, context: str) -> bool | None:
    v = value.lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    if v in ("none", "null", "auto"):
        return None
    raise ConfigError(f"arm {context!r}: {value!r} is not true, false or none")
