"""The setup's fields that a training script cannot take, disabled while a script is chosen,
each with a tooltip that says why (never taken silently and ignored).

Which fields: those of the engine's `NOT_FOR_SCRIPTS` (config/script.py: the options of the
loop tcprof writes for a model file; the engine refuses them for a script) and the model
file's own (the optimizer and learning rate tcprof builds, the repeated block regional arms
compile, the wrapper tcprof puts around the model of a distributed arm): a script builds
its own. Their values stay as they were and come back with a model file; the run of a script
takes the defaults for them.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from tcprof.app.common.field_names import in_app_terms
from tcprof.profiler.config.script import NOT_FOR_SCRIPTS

LOOP_REASON = (
    "Not for a script: {field} changes the loop tcprof writes for a model file; your script "
    "runs its own loop (set it in the script)."
)
# fields a script ignores though the engine does not refuse them (its own optimizer, no blocks)
OWN_REASONS = {
    "optimizer": "Not for a script: it builds its own optimizer (and learning rate).",
    "lr": "Not for a script: it builds its own optimizer (and learning rate).",
    "block_module": "Not for a script: the repeated block is what regional arms of a model "
    "file compile; a script's arms compile its model (or its own torch.compile call).",
    "parallel": "Not for a script: it wraps its own model (DDP, FSDP); Processes per node runs "
    "it under torchrun, each rank joining its own process group.",
}
IGNORED = tuple(OWN_REASONS)  # RunConfig fields a script's run leaves at their defaults


def reason(field: str) -> str:
    """Why `field` (a RunConfig field) is disabled for a script."""
    if field in OWN_REASONS:
        return OWN_REASONS[field]
    return LOOP_REASON.format(field=in_app_terms(NOT_FOR_SCRIPTS[field]))


class ScriptMode:
    """Disables the given fields (RunConfig field -> its widgets) while a script is chosen,
    and gives them back their own tooltips after."""

    def __init__(self, fields: dict[str, list[QWidget]]) -> None:
        self.fields = fields
        self._tips = {id(w): w.toolTip() for ws in fields.values() for w in ws}
        self.active = False

    def apply(self, active: bool) -> None:
        if active == self.active:
            return
        self.active = active
        for field, widgets in self.fields.items():
            for widget in widgets:
                widget.setEnabled(not active)
                widget.setToolTip(reason(field) if active else self._tips[id(widget)])

    def disabled(self) -> list[str]:
        """The RunConfig fields a script's run leaves at their defaults."""
        return list(self.fields) if self.active else []
