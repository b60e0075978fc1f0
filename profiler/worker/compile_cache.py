"""Where a compiled arm's caches live, and the portable cache artifacts ("mega-cache").

Cold and warm compile cost need control over the caches: each compiled arm gets its own folder
for inductor's FX graph cache, AOTAutograd's cache and Triton's (so two arms never share a
graph), set before anything compiles. `torch._inductor.runtime.cache_dir_utils.cache_dir()`
reads TORCHINDUCTOR_CACHE_DIR on every call, so setting it before the first compile is enough
even in a worker that has already imported TorchDynamo.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch


def use_cache_dir(folder: str) -> None:
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(path)
    os.environ["TRITON_CACHE_DIR"] = str(path / "triton")


def save_artifacts(path: str) -> dict[str, Any]:
    """Write what this process compiled as portable cache artifacts; sizes and counts."""
    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        return {"saved": False, "reason": "torch.compiler.save_cache_artifacts() had nothing"}
    data, info = saved
    Path(path).write_bytes(data)
    return {"saved": True, "path": path, "bytes": len(data), "artifacts": _counts(info)}


def load_artifacts(path: str) -> dict[str, Any]:
    """Load artifacts saved by this run (never a file from elsewhere: they hold code)."""
    info = torch.compiler.load_cache_artifacts(Path(path).read_bytes())
    return {"loaded": info is not None, "artifacts": _counts(info) if info else {}}


def _counts(info: Any) -> dict[str, int]:
    artifacts = getattr(info, "artifacts", None) or {}
    return {str(k): len(v) for k, v in artifacts.items()}
