"""`%load_ext tcprof` and its `%tcprof` line magic: `tcprof run`'s own arguments in a notebook
cell, returning the Session (which the cell then renders).

    %tcprof TinyNet --arms eager,aot_eager --batch-sizes 16 --steps 10

The model is a file, `--example NAME`, or the name of a class or callable of the notebook
(shipped to the workers by value, as tcprof.run ships it); `make_batch` of the notebook is
used with such a model when the notebook defines one. A leading `run` is allowed, as on the
command line. A bad argument is the CLI's one line, printed, and the magic returns nothing.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcprof.profiler.api import options as run_options
from tcprof.profiler.api.running import run_parsed
from tcprof.profiler.api.session import Session

USAGE = "usage: %tcprof [run] MODEL_FILE|NAME|--example NAME [tcprof run options]"


def tcprof_magic(line: str, namespace: Mapping[str, Any]) -> Session | None:
    """Run what `line` says; the notebook's `namespace` names Python models."""
    try:
        words = shlex.split(line)
        if words[:1] == ["run"]:
            words = words[1:]
        args = dict(run_options.parse(words))
    except ValueError as exc:
        print(f"tcprof: error: {exc}\n{USAGE}", file=sys.stderr)
        return None
    model = None
    name = args["model_file"]
    if name and not Path(name).exists() and callable(namespace.get(name)):
        model, args["model_file"] = namespace[name], None
    make_batch = namespace.get("make_batch") if model is not None else None
    try:
        return run_parsed(args, model, make_batch=make_batch if callable(make_batch) else None)
    except ValueError as exc:
        print(f"tcprof: error: {exc}", file=sys.stderr)
        return None


def load_ipython_extension(ipython: Any) -> None:
    """Register `%tcprof` (IPython calls this for `%load_ext tcprof`)."""

    def tcprof(line: str) -> Session | None:
        return tcprof_magic(line, ipython.user_ns)

    tcprof.__doc__ = __doc__
    ipython.register_magic_function(tcprof, magic_kind="line", magic_name="tcprof")
