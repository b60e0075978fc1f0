"""The built-in example models shipped in the `resources` package (resources/examples/)."""

from __future__ import annotations

import ast
from pathlib import Path

from profiler.config import ConfigError
from profiler.paths import resource_path

ORDER = ("simple", "mlp", "cnn", "tiny_gpt", "graph_break")


def example_dir() -> Path:
    return resource_path("examples")


def list_examples() -> dict[str, tuple[Path, str]]:
    """name -> (path, one-line description), in a stable order (simple first)."""
    found = {}
    for path in sorted(example_dir().glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        found[path.stem] = (path, doc.strip().splitlines()[0] if doc else "")
    ordered = {n: found[n] for n in ORDER if n in found}
    ordered.update({n: v for n, v in found.items() if n not in ordered})
    return ordered


def example_path(name: str) -> Path:
    examples = list_examples()
    if name not in examples:
        raise ConfigError(f"unknown example {name!r}; choose one of {', '.join(examples)}")
    return examples[name][0]
