"""Asking before a model file named by a session runs.

Inspecting or running a model imports its file and evaluates its factory expression: code that
came with the session, not from the user. So for a model not yet trusted (see model_picker.py)
Inspect and Run first show one line in the notice bar naming the file and the expression, with
a button that confirms and a Cancel. A notice rather than a dialog: it names the file without
blocking the window, and the session stays readable meanwhile. Confirmed, the model is
inspected; if Run asked, the run follows once the inspection answers without an error.

A training script from a session (script_options.py) gets the same question before Run: it is
never inspected (importing a script runs it), so once confirmed the run starts.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.notice_bar import NoticeBar
from tcprof.app.setup.model_picker import ModelPicker
from tcprof.app.setup.script_options import ScriptOptions


class ModelConsent(QObject):
    confirmed = Signal(str)  # the user let this file run (the window lists it as recent)
    runReady = Signal()  # confirmed for a run and inspected without an error: run now
    runDropped = Signal(str)  # confirmed for a run, but the inspection failed: why

    def __init__(
        self,
        model: ModelPicker,
        notice: NoticeBar,
        parent: QObject | None = None,
        script: ScriptOptions | None = None,
    ):
        super().__init__(parent)
        self.model = model
        self.script = script
        self.notice = notice
        self._run_after_inspection = False
        model.inspected.connect(self._on_inspected)

    def needs_trust(self) -> bool:
        """Whether what Run runs (the script, or the model file) needs the user's word."""
        if self.script is not None and self.script.active():
            return self.script.needs_trust()
        return self.model.needs_trust()

    def ask(self, then_run: bool) -> None:
        """Name the file that would run and wait for the user's word."""
        if self.script is not None and self.script.active():
            self._ask_script()
            return
        path = self.model.current_path()
        if not path:
            return
        factory = self.model.factory.text().strip()
        also = f" and evaluates {factory!r}" if factory else ""
        action = "Inspect and run" if then_run else "Inspect"
        self.notice.show_notice(
            f"Running {path} imports it and runs its code{also}.",
            [(action, lambda: self._confirm(path, then_run))],
            dismiss="Cancel",
        )

    def _ask_script(self) -> None:
        script = self.script
        assert script is not None
        path = script.path()
        typed = script.args.text()
        args = f" {typed}" if typed.strip() else ""
        self.notice.show_notice(
            f"Running {path} runs the script (python {path}{args}, in {script.cwd.text()}) in "
            "each arm's process.",
            [("Run the script", lambda: self._confirm_script(path))],
            dismiss="Cancel",
        )

    def _confirm_script(self, path: str) -> None:
        self.notice.clear()
        script = self.script
        if script is None or not script.active() or script.path() != path:
            return  # the notice named another script than the panel now holds
        script.trust()
        self.runReady.emit()

    def _confirm(self, path: str, then_run: bool) -> None:
        self.notice.clear()
        if self.model.current_path() != path:
            return  # the notice named another file than the panel now holds
        self._run_after_inspection = then_run
        self.confirmed.emit(path)
        self.model.trust()  # `inspected` follows (at once when the answer is cached)

    def _on_inspected(self) -> None:
        if not self._run_after_inspection:
            return
        self._run_after_inspection = False
        error = self.model.inspection.error if self.model.inspection else None
        if error:
            self.runDropped.emit(
                "Not run: the model could not be inspected: " + in_app_terms(str(error.message))
            )
        else:
            self.runReady.emit()
