"""Where the arms run: empty for this machine, or a host reached over ssh (`--host`).

An editable combo whose list is the hosts used before (Preferences), newest first: a host is
remembered once the user has entered it. Anything ssh accepts goes (user@name, an alias of
~/.ssh/config); the interpreter there (`--remote-python`) is carried from a restored session.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QWidget

from tcprof.app.common.settings import Preferences
from tcprof.app.setup.saved_setup import SavedSetup

HOST_KEYS = ("host",)
HOST_TIP = (
    "RunConfig.host: run the arms' workers (or their torchrun) on this machine over ssh,\n"
    "with BatchMode (no password prompt: use a key) and a connect timeout. Anything ssh\n"
    "accepts: user@gpu-box, or an alias of ~/.ssh/config with its port and key.\n"
    "tcprof and torch must be installed there (python3, or --remote-python).\n"
    "The model file, the .py files beside it and --weights travel with the run; traces and\n"
    "weights come back into the session folder. Empty: this machine."
)


class HostField(QComboBox):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        edit = self.lineEdit()
        assert edit is not None  # an editable combo box has one
        edit.setPlaceholderText("this machine")
        edit.setClearButtonEnabled(True)
        self.setToolTip(HOST_TIP)
        self.addItems(Preferences().recent_hosts())
        self.setCurrentText("")
        self.currentTextChanged.connect(lambda _text: self.changed.emit())
        edit.editingFinished.connect(self.remember)

    def host(self) -> str | None:
        return self.currentText().strip() or None

    def remember(self) -> None:
        """The host entered goes to the top of the list, here and in Preferences."""
        host = self.host()
        if host is None:
            return
        recent = Preferences().add_recent_host(host)
        self.blockSignals(True)
        self.clear()
        self.addItems(recent)
        self.setCurrentText(host)
        self.blockSignals(False)

    def set_options(self, saved: SavedSetup) -> None:
        self.setCurrentText(saved.host.value or "")
