"""Export > Log to TensorBoard, MLflow or W&B: where to send the session the window shows.

TensorBoard takes a folder (one run per arm is written under it), MLflow a tracking URI and an
experiment, W&B a project (`ENTITY/PROJECT`, or empty for W&B's own WANDB_PROJECT and
WANDB_ENTITY; WANDB_MODE=offline writes the runs locally). The choice is checked as `tcprof run --log-to` checks it (the engine's own spec
parser): a missing library says what to install, and Log stays disabled until the choice is
good. What was given is remembered for next time. The logging itself is SessionActions' work,
off the GUI thread; this dialog only asks."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.settings import Preferences, TrackerChoice
from tcprof.app.common.theme import error_colour
from tcprof.profiler.trackers.specs import TRACKING_URI_ENV, WANDB_PROJECT_ENV, parse_spec

DEFAULT_TENSORBOARD_DIR = "tensorboard"  # under the session folder, as `--log-to tensorboard`


class TrackerDialog(QDialog):
    def __init__(self, session_folder: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Log the session to TensorBoard, MLflow or W&B")
        self.prefs = Preferences()
        last = self.prefs.tracker()
        self.tensorboard = QRadioButton("TensorBoard: one run per arm, in a folder")
        self.mlflow = QRadioButton("MLflow: a run with a nested run per arm, on a tracking server")
        self.wandb = QRadioButton("W&&B: one run per arm, grouped by the session, in a project")
        self.buttons_by_kind = {
            "tensorboard": self.tensorboard,
            "mlflow": self.mlflow,
            "wandb": self.wandb,
        }
        group = QButtonGroup(self)
        for button in self.buttons_by_kind.values():
            group.addButton(button)
        self.buttons_by_kind.get(last.kind, self.tensorboard).setChecked(True)
        self.default_folder = str(session_folder / DEFAULT_TENSORBOARD_DIR)
        self.folder = QLineEdit(last.tensorboard_dir or self.default_folder)
        self.choose = QPushButton("Choose…")
        self.choose.clicked.connect(self._choose_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.choose)
        self.uri = QLineEdit(last.mlflow_uri or os.environ.get(TRACKING_URI_ENV, ""))
        self.uri.setPlaceholderText("http://127.0.0.1:5000")
        self.experiment_name = QLineEdit(last.mlflow_experiment)
        self.experiment_name.setPlaceholderText("tcprof")
        self.project = QLineEdit(last.wandb_project)
        self.project.setPlaceholderText(
            os.environ.get(WANDB_PROJECT_ENV) or "ENTITY/PROJECT, or empty for WANDB_PROJECT"
        )
        form = QFormLayout()
        form.addRow("Log folder", folder_row)
        form.addRow("Tracking URI", self.uri)
        form.addRow("Experiment", self.experiment_name)
        form.addRow("W&&B project", self.project)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {error_colour()}")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Log")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tensorboard)
        layout.addWidget(self.mlflow)
        layout.addWidget(self.wandb)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.buttons)
        for edit in (self.folder, self.uri, self.experiment_name, self.project):
            edit.textChanged.connect(self._check)
        group.buttonToggled.connect(lambda *_: self._check())
        self._check()

    def kind(self) -> str:
        return next(k for k, b in self.buttons_by_kind.items() if b.isChecked())

    def spec(self) -> str:
        if self.kind() == "mlflow":
            return f"mlflow:{self.uri.text().strip()}"
        if self.kind() == "wandb":
            project = self.project.text().strip()
            return f"wandb:{project}" if project else "wandb"
        return f"tensorboard:{self.folder.text().strip()}"

    def experiment(self) -> str | None:
        return self.experiment_name.text().strip() or None if self.kind() == "mlflow" else None

    def problem(self) -> str | None:
        """Why the choice cannot be logged (the engine's one line), None when it can."""
        if self.kind() == "mlflow" and not self.uri.text().strip():
            return "give the MLflow tracking URI (http://host:port, or sqlite:///file.db)"
        if self.kind() == "tensorboard" and not self.folder.text().strip():
            return "give the folder to write the TensorBoard runs into"
        try:
            parse_spec(self.spec())
        except ValueError as exc:
            return str(exc)
        return None

    def _check(self) -> None:
        for edit, kind in (
            (self.folder, "tensorboard"),
            (self.uri, "mlflow"),
            (self.project, "wandb"),
        ):
            edit.setEnabled(self.kind() == kind)
        self.choose.setEnabled(self.kind() == "tensorboard")
        self.experiment_name.setEnabled(self.kind() == "mlflow")
        problem = self.problem()
        self.note.setText(problem or "")
        self.note.setVisible(bool(problem))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Write the TensorBoard runs into", self.folder.text()
        )
        if folder:
            self.folder.setText(folder)

    def _accept(self) -> None:
        if self.problem() is not None:
            return
        folder = self.folder.text().strip()
        self.prefs.set_tracker(
            TrackerChoice(
                kind=self.kind(),
                # a folder of the user's own is offered again; a session's own is not
                tensorboard_dir="" if folder == self.default_folder else folder,
                mlflow_uri=self.uri.text().strip(),
                mlflow_experiment=self.experiment_name.text().strip(),
                wandb_project=self.project.text().strip(),
            )
        )
        self.accept()
