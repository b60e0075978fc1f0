"""The "Weights" tab: where each arm's trained weights were saved and whether the save was
verified, with the reason tcprof saves a plain state_dict instead of the compiled object."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import table_text
from tcprof.app.common.theme import error_colour
from tcprof.profiler.model.artifacts import Artifact
from tcprof.profiler.model.session import SessionModel

WHY_STATE_DICT = (
    "Why not torch.save(compiled_model)? It pickles the OptimizedModule wrapper that "
    "torch.compile returns: the file then depends on torch/dynamo internals and on your code "
    "being importable the same way, and torch.load of it needs weights_only=False (it runs "
    'code). Its state_dict() keys also carry an "_orig_mod." prefix, so they do not load '
    "into your plain model. Share the plain state_dict: tcprof strips the prefix, saves it as "
    ".safetensors (or .pt), and verifies it with model.load_state_dict(..., strict=True) on a "
    "fresh eager model."
)
EMPTY = 'No weights were saved: choose "Save trained weights" in the setup panel before a run.'
HEADER = ["arm", "file", "format", "tensors", "check"]


def weight_rows(session: SessionModel) -> list[tuple[str, Artifact]]:
    return [(arm.name, a) for arm in session.arms for a in arm.artifacts if a.kind == "weights"]


class WeightsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel(EMPTY)
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADER))
        self.table.setHorizontalHeaderLabels(HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        why = QLabel(WHY_STATE_DICT)
        why.setWordWrap(True)
        why.setStyleSheet("font-size: 8pt")
        self.open_folder = QPushButton("Open folder")
        self.open_folder.clicked.connect(self._open_folder)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.open_folder)
        layout.addWidget(why)
        self._folder: str | None = None
        self.show_session(SessionModel.from_json({"arms": []}))

    def show_session(self, session: SessionModel) -> None:
        rows = weight_rows(session)
        self.table.setRowCount(len(rows))
        for r, (name, art) in enumerate(rows):
            verified = art.verified
            check = "verified by strict load" if verified else "NOT verified"
            cells = [
                name,
                str(art.path),
                str(art.format or Path(str(art.path)).suffix[1:]),
                "-" if art.tensors is None else str(art.tensors),
                check,
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 4 and not verified:
                    item.setForeground(QColor(error_colour()))
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self._folder = str(Path(str(rows[0][1].path)).parent.parent) if rows else None
        self.open_folder.setVisible(self._folder is not None)
        self.note.setText(
            f'{len(rows)} state_dict file(s), "_orig_mod." prefix removed; each was loaded '
            "into a fresh eager model with load_state_dict(strict=True)."
            if rows
            else EMPTY
        )

    def rows(self) -> list[list[str]]:
        return table_text(self.table)

    def _open_folder(self) -> None:
        if self._folder:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self._folder))
