"""Results tabs: the verdict and the summary table (batch size x arm), compile insight, logs, environment, and
the reproducing code, torch.profiler operators, saved weights, the ranks of distributed arms and
(a training script's session) what the script compiled where and its own time.

Every tab but the logs and the environment is filled from one session by `show_session` (the
typed session model, or the dict session.json holds, which the engine's `SessionFold.to_dict()`
gives: read into the model once), whether it is a run in progress, a run that ended or a saved
session; the table uses the engine's own cell formatting so the window and `tcprof run` agree
to the digit.
"""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.field_names import in_app_terms
from tcprof.app.common.table_text import set_header_tip, table_text
from tcprof.app.common.theme import error_colour, good_colour, session_arm_colour
from tcprof.app.results.code_view import CodeView
from tcprof.app.results.insight_view import InsightView
from tcprof.app.results.log_panel import LogPanel
from tcprof.app.results.profile_view import ProfileView
from tcprof.app.results.ranks_view import RanksView
from tcprof.app.results.script_view import TITLE as SCRIPT_TITLE
from tcprof.app.results.script_view import ScriptView, summary_note
from tcprof.app.results.summary_columns import SummaryColumns, two_lines
from tcprof.app.results.timeline_view import TimelineView
from tcprof.app.results.verdict_banner import VerdictBanner
from tcprof.app.results.weights_view import WeightsView
from tcprof.profiler.analysis.verdict import (
    BAD,
    GOOD,
    NOT_SETTLED,
    is_partial,
    memory_title,
    partial_title,
    settle_hint,
    speedup_tone,
)
from tcprof.profiler.model.context import Environment
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.sections.cells import accuracy_title
from tcprof.profiler.report.sections.columns import COLUMN_HELP, SPEEDUP, column_key
from tcprof.profiler.report.sections.method import method_notes
from tcprof.profiler.report.sections.table import batch_size_order, summary_results, table_rows


def environment_rows(env: Environment) -> list[tuple[str, str]]:
    """The Environment tab's rows, (label, text), for each field the worker's hello gave."""
    values: tuple[tuple[str, object], ...] = (
        ("torch", env.torch),
        ("Python", env.python),
        ("platform", env.platform),
        ("device", env.device),
        ("device name", env.device_name),
        ("CPU", env.cpu),
        ("CPU cores", env.cpu_count),
        ("torch threads (torch.get_num_threads)", env.torch_threads),
        ("CUDA", env.cuda),
        ("CUDA available", env.cuda_available),
        ("devices", env.devices),
    )
    return [
        (label, ", ".join(map(str, v)) if isinstance(v, tuple) else str(v))
        for label, v in values
        if v not in (None, "", ())
    ]


def _table(columns: int) -> QTableWidget:
    table = QTableWidget(0, columns)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.setAlternatingRowColors(True)
    return table


def short_status(text: str) -> str:
    """The status as the Summary's narrow column shows it ("ok (9/10 contended)"); its
    tooltip keeps the reports' words."""
    return text.replace(" blocks contended)", " contended)")


def _summary_rows(model: SessionModel, sizes: list[int]) -> list[tuple[int, Row]]:
    """(arm index, row) for every Summary row, in summary_results's order: by batch size, the
    arms side by side within each."""
    arms = list(enumerate(model.arms))
    return [(i, row) for bs in sizes for i, arm in arms for row in arm.rows if row.batch_size == bs]


class ResultsView(QTabWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = _table(1)
        self.summary.setAlternatingRowColors(False)  # banded by batch size instead
        self.columns = SummaryColumns(self.summary)
        self.verdict = VerdictBanner()
        summary_tab = QWidget()
        summary_layout = QVBoxLayout(summary_tab)
        summary_layout.setContentsMargins(0, 0, 0, 0)
        summary_layout.setSpacing(2)
        summary_layout.addWidget(self.verdict)
        self.script_note = QLabel()  # a script's session: what was compiled and where
        self.script_note.setWordWrap(True)
        self.script_note.setStyleSheet("font-size: 8pt")
        self.script_note.hide()
        summary_layout.addWidget(self.script_note)
        summary_layout.addWidget(self.summary, 1)
        self.insight = InsightView()
        self.logs = LogPanel()
        self.environment = _table(2)
        self.environment.setHorizontalHeaderLabels(["", "value"])
        self.environment.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.addTab(summary_tab, "Summary")
        self.addTab(self.insight, "Compile insight")
        self.addTab(self.logs, "Logs")
        self.code = CodeView()
        self.profile = ProfileView()
        self.weights = WeightsView()
        self.addTab(self.environment, "Environment")
        self.addTab(self.code, "Code")
        self.addTab(self.profile, "Profile")
        self.addTab(self.weights, "Weights")
        self.ranks = RanksView()  # distributed arms: the straggler view, compiles per rank
        self.addTab(self.ranks, "Ranks")
        self.script = ScriptView()
        self.addTab(self.script, SCRIPT_TITLE)
        self.timeline = TimelineView()  # where the run's time went
        self.addTab(self.timeline, "Timeline")
        self.show_session(SessionModel.from_json({"arms": []}))

    def show_session(self, model: SessionModel) -> None:
        """Fill every session tab from the session's model (one with no arms empties them)."""
        self.verdict.show_session(model)
        self._show_summary(model)
        self.insight.show_session(model)
        self.code.show_session(model)
        self.profile.show_session(model)
        self.weights.show_session(model)
        self.ranks.show_session(model)
        self.setTabVisible(self.indexOf(self.script), self.script.show_session(model))
        self.setTabVisible(self.indexOf(self.timeline), self.timeline.show_session(model))
        note = summary_note(model)
        self.script_note.setText(note)
        self.script_note.setVisible(bool(note))

    def _show_summary(self, model: SessionModel) -> None:
        header, rows = table_rows(model)
        self.summary.setSortingEnabled(False)
        self.summary.clear()
        self.summary.setColumnCount(len(header))
        self.summary.setHorizontalHeaderLabels([two_lines(h) for h in header])
        for c, h in enumerate(header):
            if column_key(h) in COLUMN_HELP:
                set_header_tip(
                    self.summary,
                    c,
                    f"{COLUMN_HELP[column_key(h)]}\n"
                    "(right-click the header to choose the columns shown)",
                )
        # the engine's notes name CLI flags; the window names its own fields
        self.summary.setToolTip(in_app_terms("\n".join(method_notes(model))))
        self.summary.setRowCount(len(rows))
        results = summary_results(model)
        typed = _summary_rows(model, batch_size_order(model))
        shade = self.summary.palette().alternateBase()
        sizes = list(dict.fromkeys(typed_row.batch_size for _i, typed_row in typed))
        bad = QColor(error_colour())
        good = QColor(good_colour())
        tones = {GOOD: good, BAD: bad}
        for r, row in enumerate(rows):
            _i, _arm, result = results[r]
            arm_index, typed_row = typed[r]
            banded = sizes.index(typed_row.batch_size) % 2 == 1
            for c, text in enumerate(row):
                item = QTableWidgetItem(short_status(text) if header[c] == "status" else text)
                if banded:  # one band per batch size: its arms read as a group
                    item.setBackground(shade)
                if c == 0:
                    item.setForeground(session_arm_colour(model, arm_index))
                if column_key(header[c]) == SPEEDUP and arm_index:
                    tone = tones.get(speedup_tone(typed_row))
                    if tone is not None:
                        item.setForeground(tone)
                    speedup = typed_row.speedup
                    if speedup is not None and not speedup.settled:
                        item.setToolTip(in_app_terms(f"{NOT_SETTLED}: {settle_hint(typed_row)}"))
                if header[c] == "memory" and arm_index:
                    item.setToolTip(memory_title(typed_row, model.baseline))
                if header[c] == "accuracy" and typed_row.accuracy:
                    item.setToolTip(accuracy_title(typed_row.accuracy))
                    if text == "fail":
                        item.setForeground(bad)
                if header[c] == "verdict" and text in ("faster", "slower"):
                    item.setForeground(good if text == "faster" else bad)
                if header[c] == "status" and not text.startswith("ok"):
                    item.setForeground(bad)
                    if typed_row.error:
                        item.setToolTip(typed_row.error.message)
                if text.endswith("(partial)") or (header[c] == "status" and is_partial(result)):
                    item.setToolTip(partial_title(typed_row))
                if not item.toolTip():
                    item.setToolTip(text)  # an elided cell's whole text
                elif item.text() != text:
                    item.setToolTip(f"{text}\n{item.toolTip()}")  # a shortened one's too
                self.summary.setItem(r, c, item)
        self.summary.resizeColumnsToContents()
        self.columns.apply()

    def header(self) -> list[str]:
        """The Summary's column names (their labels may be drawn on two lines)."""
        return self.columns.labels()

    def rows(self) -> list[list[str]]:
        """The table's text (tests and exports read it)."""
        return table_text(self.summary)

    def show_environment(self, env: Environment | None) -> None:
        """The worker's environment (None: not known yet, its backends still being detected)."""
        rows = environment_rows(env) if env is not None else []
        self.environment.setRowCount(len(rows) + 1)
        for r, (label, text) in enumerate(rows):
            self.environment.setItem(r, 0, QTableWidgetItem(label))
            self.environment.setItem(r, 1, QTableWidgetItem(text))
        backends = env.backends if env is not None else ()
        self.environment.setItem(len(rows), 0, QTableWidgetItem("compile backends"))
        self.environment.setItem(
            len(rows), 1, QTableWidgetItem(", ".join(backends) if backends else "(detecting…)")
        )
        self.environment.resizeColumnToContents(0)
