"""The engine's messages in the window's terms: `--factory` becomes "the Factory field".

The engine speaks to the command line (`tcprof run --factory ...`); the same message in the
window must point at the field the user edits instead. One table, used by the error banner and
the setup panel, covers every flag the engine's messages name (tests/app/common/test_field_names.py
finds them in profiler/ and fails on one missing here).
"""

from __future__ import annotations

import re

FLAG_FIELDS = {
    "--factory": "the Factory field",
    "--input-shape": "the Input shape field",
    "--arms": "the Arms list",
    "--steps": "the Steps field",
    "--warmup": "the Warm-up field",
    "--batch-size": "the Batch sizes field",
    "--batch-sizes": "the Batch sizes field",
    "--replicates": "the Replicates field",
    "--budget": "the Budget field",
    "--threads": "the Threads field",
    "--stall-timeout": "the Stall timeout field",
    "--control": "the A/A control option",
    "--warm-cache": "the Use my compile caches option",
    "--portable-round": "the Measure portable caches option",
    "--apply-advice": "the Apply advice after the run option",
    "--loop": "the Loop field",
    "--amp": "the Mixed precision field",
    "--channels-last": "the channels_last option",
    "--compile-optimizer": "the Compile the optimizer step option",
    "--save-weights": "the Save trained weights field",
    "--weights": "the Checkpoint field",
    "--block-module": "the Repeated block field",
    "--profile-steps": "the torch.profiler steps field",
    "--log": "the Debug logs",
    "--trace": "the TORCH_TRACE + tlparse debug option",
    "--suppress-errors": "the suppress errors debug option",
    "--parallel": "the Parallel field",
    "--nproc": "the Processes per node field",
    "--nproc-per-node": "the Processes per node field",
    "--nnodes": "the Nodes field",
    "--node-rank": "the Node rank field",
    "--rdzv-endpoint": "the Rendezvous endpoint field",
    "--rdzv-timeout": "the Rendezvous timeout field",
    "--host": "the Host field",
    "--remote-python": "the remote_python setting (carried)",
    # a training script's own options (the Training script box, script_options.py)
    "--sweep": "the Sweep field",
    "--step-on": "the Step on field",
    "--no-step-timeout": "the No-step timeout field",
    # No field yet: the unit of work is chosen from what the script's model was given.
    "--unit": "the unit of work (tcprof run --unit; the window counts what the model is given)",
    # Settings without a field of their own: carried from an opened session (see
    # carried_settings.py), so the message names the setting as the panel lists it.
    "--blocks": "the blocks setting (carried)",
    "--min-block-ms": "the min_block_ms setting (carried)",
    "--rtol": "the accuracy_rtol setting (carried)",
    "--atol": "the accuracy_atol setting (carried)",
    "--timeout": "the timeout setting (carried)",
    "--ladder": "the ladder setting (carried)",
    "--precision": "the precision setting (carried)",
    "--max-rounds": "the max_rounds setting (carried)",
    "--example": "the Examples menu",
    # `tcprof run`'s own folder options: the window picks the session folder itself.
    "--out": "the session folder",
    "--force": "a new session folder",
    "--no-accuracy": "the Accuracy check option (off)",
    # The trackers: the window's Export menu logs a saved session.
    "--log-to": "Export > Log to TensorBoard, MLflow or W&B",
    "--mlflow-experiment": "the Experiment field of Log to TensorBoard, MLflow or W&B",
    # The team store: the window sends to and lists the store TCPROF_STORE names.
    "--store": "the team store (TCPROF_STORE)",
    "--against-latest": "tcprof compare --against-latest (the command line's CI gate)",
}
# Other programs' flags, quoted in a command the user runs as it is ("tensorboard --logdir D",
# a script's own "--batch_size={batch_size}").
FOREIGN_FLAGS = frozenset({"--logdir", "--batch"})
# "pass " (the engine's verb for a flag), a flag, and its value: a quoted one (--factory
# "GPT(...)"), a number or a NAME=V list (--warmup 5, --sweep n=1,2); in backticks, a word too
# (`--step-on forward`); or "a longer" flag (a longer --no-step-timeout)
_FLAG = re.compile(
    r"(\bpass |\ba longer |\ba shorter )?(`)?(--[a-z][a-z-]*[a-z])"
    r"(\s+\"[^\"]*\"|\s+[0-9][\w.]*(?![\w-])|\s+\w+=[\w.,]+|(?(2)\s+\w+(?=`)))?(?(2)`)"
)


def in_app_terms(text: str) -> str:
    """text with each known flag named as the window's field; a value that followed the flag
    is kept in front: 'e.g. --factory "M(...)"' -> 'e.g. "M(...)" in the Factory field',
    '`--step-on forward`' -> 'forward in the Step on field'; 'pass --input-shape' -> 'fill in
    the Input shape field', 'a longer --no-step-timeout' -> 'a longer value in the No-step
    timeout field'. Unknown flags are left as they are."""

    def name(match: re.Match[str]) -> str:
        verb, _tick, flag, value = match.groups()
        field = FLAG_FIELDS.get(flag)
        if field is None:
            return match.group(0)
        named = f"{value.strip()} in {field}" if value else field
        if verb and verb.startswith("a "):
            return f"{verb}value in {field}"
        return f"fill in {named}" if verb else named

    return _FLAG.sub(name, text)
