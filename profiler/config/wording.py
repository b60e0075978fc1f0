"""A session's setup in words for the reports: where its arms ran and its loop kind."""

from __future__ import annotations

from typing import Any

from tcprof.profiler.config.choices import DEFAULT_REMOTE_PYTHON


def where_text(config: dict[str, Any]) -> str:
    """'gpu-box over ssh (~/venv/bin/python)' or 'this machine': where a session's arms ran."""
    host = config.get("host")
    if not isinstance(host, str) or not host:
        return "this machine"
    return f"{host} over ssh ({config.get('remote_python') or DEFAULT_REMOTE_PYTHON})"


def loop_text(config: dict[str, Any]) -> str:
    """'train, bf16 autocast, channels_last, compiled optimizer step': a session's loop kind
    in words, for the reports (a config of an older session reads as fp32 training)."""
    loop = str(config.get("loop") or "train")
    parts = [
        "inference (eval, torch.inference_mode)" if loop == "inference" else "train",
        f"{config['amp']} autocast" if config.get("amp") else "fp32",
    ]
    if config.get("amp") == "fp16" and loop == "train":
        parts.append("GradScaler")
    if config.get("channels_last"):
        parts.append("channels_last")
    if config.get("compile_optimizer"):
        parts.append("compiled optimizer step")
    return ", ".join(parts)
