"""One arm of a run: `ArmSpec` (eager, or torch.compile with its options) and the name it is
shown by, built from its options when it has no label."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.config.choices import DYNAMO_EAGER


@dataclass(frozen=True)
class ArmSpec:
    """One arm: eager, or torch.compile(model, backend=..., mode=..., dynamic=..., fullgraph=...)."""

    backend: str = "eager"  # "eager" means no torch.compile at all
    mode: str | None = None
    dynamic: bool | None = None
    fullgraph: bool = False
    label: str | None = None
    regional: bool = False  # compile each repeated block in place instead of the whole model
    mark_dynamic: int | None = None  # torch._dynamo.mark_dynamic(x, dim) on every input tensor
    parallel: str | None = None  # ddp | fsdp | none; None: the run's --parallel
    # another interpreter for this arm's workers (another environment, another torch); None:
    # the engine's own
    python: str | None = None

    @property
    def compiled(self) -> bool:
        return self.backend != "eager"

    @property
    def torch_backend(self) -> str:
        """The name passed to torch.compile: 'dynamo_eager' is torch.compile(backend="eager")
        (TorchDynamo capture only), since a plain 'eager' arm means no torch.compile at all."""
        return "eager" if self.backend == DYNAMO_EAGER else self.backend

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        if not self.compiled and self.python is None:
            return "eager" if self.parallel is None else f"eager(parallel={self.parallel})"
        parts = [self.backend]
        if self.mode and self.mode != "default":
            parts.append(self.mode)
        if self.dynamic is not None:
            parts.append(f"dynamic={self.dynamic}")
        if self.fullgraph:
            parts.append("fullgraph")
        if self.regional:
            parts.append("regional")
        if self.mark_dynamic is not None:
            parts.append(f"mark_dynamic={self.mark_dynamic}")
        if self.parallel is not None:
            parts.append(f"parallel={self.parallel}")
        if self.python is not None:
            parts.append(f"python={interpreter_name(self.python)}")
        return " ".join(parts) if len(parts) == 1 else f"{parts[0]}({', '.join(parts[1:])})"

    def options(self) -> dict[str, Any]:
        return {"mode": self.mode, "dynamic": self.dynamic, "fullgraph": self.fullgraph}

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArmSpec:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def interpreter_name(python: str) -> str:
    """An interpreter as an arm's name shows it: its environment's folder
    (`/opt/torch214/bin/python` is 'torch214'), else the file's own name."""
    path = Path(python)
    return (
        path.parent.parent.name
        if path.parent.name == "bin" and path.parent.parent.name
        else path.name
    )
