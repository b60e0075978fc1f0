"""What a saved session's run planned, typed: its warm-up and measured steps, its rounds, its
device and (a training script's run) the script. The window lays out a saved session's plots
from it as it lays out a live run's from its RunConfig; the rest of `config` stays raw
(model/raw.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcprof.profiler.config.script import ScriptSource
from tcprof.profiler.model.json_values import as_float, as_map, as_str, thaw


def _count(value: Any, default: int) -> int:
    """A count as old sessions hold it (an int, or a float written by hand); missing: `default`."""
    number = as_float(value)
    return int(number) if number else default


def _script(value: Any) -> ScriptSource | None:
    """A script's run's source; one saved without its path is still a script's run."""
    if not isinstance(value, Mapping):
        return None
    return ScriptSource.from_dict({"path": "", **thaw(value)})


@dataclass(frozen=True)
class Plan:
    """The planned shape of a run: steps per batch size after `warmup` warm-up steps, rounds
    (`replicates`), the device (None: not said), a script's source (None: a model file) and
    the model file's path."""

    warmup: int
    steps: int
    replicates: int
    device: str | None
    script: ScriptSource | None
    model_path: str | None = None  # the model file run (`source.path`; None: not said)

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> Plan:
        return cls(
            warmup=_count(config.get("warmup"), 0),
            steps=_count(config.get("steps"), 0),
            replicates=_count(config.get("replicates"), 1),
            device=as_str(config.get("device")),
            script=_script(config.get("script")),
            model_path=as_str(as_map(config.get("source")).get("path")) or None,
        )
