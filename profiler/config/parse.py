"""The plain text forms users type (batch sizes, input shapes, endpoints), parsed with
one-line errors; they need nothing of the run's model."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tcprof.profiler.config.choices import ConfigError


def parse_endpoint(text: str) -> tuple[str, int]:
    """'HOST:PORT' (an IPv6 host in brackets) as (host, port)."""
    host, sep, port = str(text).rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--rdzv-endpoint is HOST:PORT, not {text!r}")
    return host, int(port)


def parse_batch_sizes(text: str) -> tuple[int, ...]:
    """'32, 64,128' -> (32, 64, 128); duplicates and non-positive numbers are errors."""
    items = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if not items:
        raise ConfigError("give at least one batch size, e.g. 32,64")
    out: list[int] = []
    for item in items:
        if not item.isdigit() or int(item) < 1:
            raise ConfigError(f"batch size {item!r} is not a positive integer")
        if int(item) in out:
            raise ConfigError(f"batch size {item} is listed twice")
        out.append(int(item))
    return tuple(out)


@dataclass(frozen=True)
class InputShape:
    """A per-sample input shape; the batch dimension is prepended at run time."""

    dims: tuple[int, ...]
    integer: bool = False
    vocab: int | None = None

    def describe(self) -> str:
        text = "x".join(str(d) for d in self.dims)
        if not self.integer:
            return text
        return f"int:{text}:{self.vocab}" if self.vocab else f"int:{text}"


def parse_input_shape(text: str) -> InputShape:
    """'10' -> floats (B, 10); '3x64x64' -> (B, 3, 64, 64); 'int:128' -> tokens (B, 128);
    'int:128:50257' also fixes the token range."""
    raw = text.strip().lower()
    integer = raw.startswith("int:")
    if integer:
        raw = raw[4:]
    vocab = None
    if integer and ":" in raw:
        raw, vocab_text = raw.split(":", 1)
        if not vocab_text.isdigit() or int(vocab_text) < 1:
            raise ConfigError(
                f"input shape {text!r}: the token range after the second ':' must be a positive integer"
            )
        vocab = int(vocab_text)
    parts = [p for p in re.split(r"[x×,\s]+", raw) if p]
    if not parts or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ConfigError(
            f"input shape {text!r} is not of the form 10, 3x64x64 or int:128 (per sample, without the batch size)"
        )
    return InputShape(tuple(int(p) for p in parts), integer, vocab)
