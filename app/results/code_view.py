"""The "Code" tab: the standalone plain-PyTorch script that reproduces one arm of the session.

It is the engine's `render_reproducer` (the same reproduce.py the export writes), so what the
user copies into their project is exactly what the report shows: their model file, the seed's
training loop, and the arm's `torch.compile(...)` line with its mode, dynamic, fullgraph and
debug settings.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tcprof.profiler.model.session import SessionModel

EXPLAIN = (
    "A standalone script (plain PyTorch, no tcprof) that reproduces this arm: it loads your "
    "model file, builds the same batches with the same seed, applies the arm's torch.compile "
    "line and debug settings, and runs the training loop (forward, loss, backward, "
    "optimizer.step, zero_grad), printing the loss. Copy the compile line into your own code."
)


class CodeView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.arm = QComboBox()
        self.arm.setToolTip("The arm whose torch.compile settings the script uses")
        self.arm.currentTextChanged.connect(self._render)
        self.copy = QPushButton("Copy")
        self.copy.setToolTip("Copy the whole script to the clipboard")
        self.copy.clicked.connect(self.copy_to_clipboard)
        note = QLabel(EXPLAIN)
        note.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFont("monospace", 9)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(font)
        top = QHBoxLayout()
        top.addWidget(QLabel("Arm:"))
        top.addWidget(self.arm, 1)
        top.addWidget(self.copy)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(note)
        layout.addWidget(self.text, 1)
        self._session = SessionModel.from_json({"arms": []})
        self.show_session(self._session)

    def show_session(self, session: SessionModel) -> None:
        """Offer the session's arms; the first compiled arm is chosen (as in reproduce.py)."""
        self._session = session
        names = [a.name for a in self._session.arms]
        compiled = [a.name for a in self._session.arms if a.compiled]
        self.arm.blockSignals(True)
        self.arm.clear()
        self.arm.addItems(names)
        if compiled:
            self.arm.setCurrentText(compiled[0])
        self.arm.blockSignals(False)
        self._render()

    def _render(self) -> None:
        if not self._session.arms:
            self.text.setPlainText("# Run or open a session to see the code for its arms.")
            self.copy.setEnabled(False)
            return
        from tcprof.profiler.report.reproduce import (
            render_reproducer,  # numpy-backed: not at start-up
        )

        try:
            script = render_reproducer(self._session, self.arm.currentText() or None)
        except Exception as exc:  # a session from an older version: say so, never raise
            script = f"# could not generate the script: {type(exc).__name__}: {exc}\n"
        self.text.setPlainText(script)
        self.copy.setEnabled(True)

    def script(self) -> str:
        return self.text.toPlainText()

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.script())
