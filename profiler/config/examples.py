"""The built-in example models shipped in the `resources` package (resources/examples/).

Each has a name (its file's stem, what `tcprof run --example NAME` takes), a title and a
one-line description: the window's Examples menu and model picker show the title, so a user
picks "Small CNN" rather than guessing what `cnn` holds.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from tcprof.profiler.config import ConfigError
from tcprof.profiler.config.resources import resource_path

ORDER = ("simple", "mlp", "cnn", "tiny_gpt", "graph_break")
# name -> (title, one-line description); an example not listed is titled by its name and
# described by its docstring's first line.
TITLES = {
    "simple": ("Simple linear model", "the seed's SimpleModel: one nn.Linear(10, 1), MSE and SGD"),
    "mlp": ("MLP", "4 linear layers 512 wide with GELU and LayerNorm: enough work for fusion"),
    "cnn": ("Small CNN", "convolutions, BatchNorm and a classifier on 3x32x32 images"),
    "tiny_gpt": (
        "Tiny GPT",
        "a 2-layer transformer built by make_model() from a config object, on tokens",
    ),
    "graph_break": (
        "Model with a graph break",
        "a data-dependent `if` in forward splits the compiled graph in two",
    ),
}


@dataclass(frozen=True)
class Example:
    name: str
    path: Path
    title: str
    description: str

    @property
    def line(self) -> str:
        """'Small CNN — convolutions, …': one line for a menu's tooltip or a listing."""
        return f"{self.title} — {self.description}" if self.description else self.title


def example_dir() -> Path:
    return resource_path("examples")


def examples() -> list[Example]:
    """Every example, in a stable order (simple first)."""
    return list(_examples())


@functools.lru_cache(maxsize=1)
def _examples() -> tuple[Example, ...]:
    """Read once: the files ship with the package and do not change while it runs."""
    found = {}
    for path in sorted(example_dir().glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        title, description = TITLES.get(
            path.stem, (path.stem, doc.strip().splitlines()[0] if doc else "")
        )
        found[path.stem] = Example(path.stem, path, title, description)
    ordered = [found[n] for n in ORDER if n in found]
    return tuple(ordered + [e for n, e in found.items() if n not in ORDER])


def list_examples() -> dict[str, tuple[Path, str]]:
    """name -> (path, 'Title — description'), in the order of `examples()`."""
    return {e.name: (e.path, e.line) for e in examples()}


def example_for(path: str | Path) -> Example | None:
    """The example a file is, or None for the user's own file."""
    try:
        resolved = Path(path).resolve()
    except OSError:
        return None
    return next((e for e in _examples() if e.path.resolve() == resolved), None)


def example_path(name: str) -> Path:
    known = list_examples()
    if name not in known:
        raise ConfigError(f"unknown example {name!r}; choose one of {', '.join(known)}")
    return known[name][0]
