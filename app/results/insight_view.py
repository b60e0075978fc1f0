"""The "Compile insight" tab: why torch.compile helped or not, beside the numbers.

Everything comes from the typed session model (profiler/model/): the batch-size matrix of what
TorchDynamo did per arm (compiled, recompiled, reused a graph, fell back to eager), each
distinct graph break with the user's source lines around it, each recompile with the guard
that failed, the compile cost split into parts that add up to it, with break-even steps, and
the backend ladder of a Diagnose run. Clicking a cell of the matrix shows its arm and batch size
below; a table with nothing to list says so in words. The tables are built in insight_tables.py.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.table_text import cell_text
from tcprof.app.results.insight_tables import (
    PART_TIPS,
    TIMES_HEADER,
    TIMES_HELP,
    TableOrNote,
    advice_cells,
    compile_time_cells,
    fill,
    graph_break_cells,
    item,
    make_table,
    matrix_item,
    recompile_cells,
    saved_row,
    set_header_tips,
)
from tcprof.app.results.ladder_view import LadderView
from tcprof.profiler.model.arm import Arm
from tcprof.profiler.model.row import Row
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.protocol.compile_terms import (
    frame_text,
    other_help,
    parts_text,
    resume_explanation,
    split_problem,
)
from tcprof.profiler.protocol.event_text import recompile_limit_hit
from tcprof.profiler.report.sections import compile_list
from tcprof.profiler.report.sections.source_context import (
    source_context,  # regular files under 1 MB only
)
from tcprof.profiler.run.apply_advice import before_after

NO_BREAKS = "No graph breaks in this arm: TorchDynamo captured each frame whole."
NO_RECOMPILES = "No recompiles in this arm: every batch size ran on the graphs it first compiled."
STRETCH = QHeaderView.ResizeMode.Stretch
NO_ADVICE = "No advice for this arm: nothing in its recompiles calls for a change."
NO_TIMES = "No batch size of this arm was measured."
APPLY_TIP = (
    "Run this setup again with --apply-advice: after the rounds, each fix tcprof can apply is\n"
    "run as a new arm beside the one advised (before and after in one session)"
)


COMPILES_TIP = (
    "Each compile of the batch size selected above, wherever it ran: when, the call in your\n"
    "code that triggered it (grad mode, input shapes), torch's time for it and its share;\n"
    "the total is the compile cost. Hover a row for the guard that failed."
)
MATRIX_ROWS = 3  # arms the Compile insight matrix shows without scrolling


class InsightView(QWidget):
    applyAdviceRequested = Signal()  # "Apply and re-run": the window starts the run

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = SessionModel.from_json({"arms": []})
        self._sizes: list[int] = []  # the matrix's batch-size columns
        self.matrix = make_table(["arm"])
        self.matrix.setToolTip(
            "What TorchDynamo did at each batch size: compiled, recompiled (a guard failed, e.g. a\n"
            "new batch size with dynamic=False), reused an existing graph (dynamic shapes), or fell\n"
            "back to eager after torch._dynamo.config.recompile_limit; fallen-back timings are not\n"
            "compiled timings. Click a row to see that arm (and batch size) below."
        )
        self.matrix.cellClicked.connect(self._on_matrix_clicked)
        self.arm_picker = QComboBox()
        self.arm_picker.setToolTip(
            "The compiled arm whose graph breaks, recompiles and compile times are shown"
        )
        self.arm_picker.currentIndexChanged.connect(self._show_arm)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.breaks = make_table(["count", "where", "batch sizes", "reason"])
        self.breaks.setToolTip(
            "Each distinct graph break once (from the graph_breaks log artifact); select one to see your code"
        )
        self.breaks.itemSelectionChanged.connect(self._show_break)
        self.break_detail = QPlainTextEdit()
        self.break_detail.setReadOnly(True)
        self.break_detail.setFont(QFont("monospace", 9))
        self.break_detail.setPlaceholderText(
            "Select a graph break to see the source lines around it and PyTorch's hints."
        )
        breaks_split = QSplitter(Qt.Orientation.Vertical)
        breaks_split.addWidget(self.breaks)
        breaks_split.addWidget(self.break_detail)

        self.recompiles = make_table(["bs", "step", "frame", "where", "s", "guard that failed"])
        self.recompiles.setToolTip(
            "Each recompile with the guard failure that caused it (torch._dynamo compilation\n"
            "metrics); s is torch's compile timer for that recompile. A frame named\n"
            "torch_dynamo_resume_in_<function>_at_<line> is the rest of <function> after a graph\n"
            "break, compiled as its own graph."
        )
        self.times = make_table(TIMES_HEADER)
        self.times.setToolTip(TIMES_HELP)
        set_header_tips(self.times, PART_TIPS)
        self.times.itemSelectionChanged.connect(self._show_parts)
        self.parts = QLabel()
        self.parts.setWordWrap(True)
        self.parts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the selected batch size's compiles: when, what triggered each, its time and share
        self.compiles = make_table(compile_list.HEADER)
        self.compiles.setToolTip(f"{COMPILES_TIP}\n{compile_list.WHEN_HELP}")
        self.compile_case = QLabel()
        self.compile_case.setWordWrap(True)
        self.compile_case.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        times_box = QWidget()
        times_layout = QVBoxLayout(times_box)
        times_layout.setContentsMargins(0, 0, 0, 0)
        times_layout.addWidget(self.parts)
        times_layout.addWidget(self.times, 1)
        times_layout.addWidget(self.compile_case)
        times_layout.addWidget(self.compiles, 2)
        self.advice = make_table(["cause", "fix", "tcprof can verify it with"])
        self.advice.setToolTip(
            "The arm's guard failures grouped into causes, each with the change that removes\n"
            "them. A fix tcprof can apply itself is verified by Apply and re-run (tcprof run\n"
            "--apply-advice), which adds an arm with it to the same session."
        )
        self.advice.setWordWrap(True)
        # cause and fix share the width and wrap, so a long cause reads without scrolling
        advice_header = self.advice.horizontalHeader()
        for column, mode in enumerate((STRETCH, STRETCH, QHeaderView.ResizeMode.ResizeToContents)):
            advice_header.setSectionResizeMode(column, mode)
        advice_header.sectionResized.connect(lambda *_: self.advice.resizeRowsToContents())
        self.apply_advice = QPushButton("Apply and re-run")
        self.apply_advice.setToolTip(APPLY_TIP)
        self.apply_advice.clicked.connect(self.applyAdviceRequested)
        advice_box = QWidget()
        advice_layout = QVBoxLayout(advice_box)
        advice_layout.setContentsMargins(0, 0, 0, 0)
        advice_layout.addWidget(self.advice, 1)
        advice_layout.addWidget(self.apply_advice, 0, Qt.AlignmentFlag.AlignLeft)
        self.advice_page = TableOrNote(advice_box)
        self.breaks_page = TableOrNote(breaks_split)
        self.recompiles_page = TableOrNote(self.recompiles)
        self.times_page = TableOrNote(times_box)
        self.ladder = LadderView()
        details = QTabWidget()
        details.addTab(self.advice_page, "Advice")
        details.addTab(self.breaks_page, "Graph breaks")
        details.addTab(self.recompiles_page, "Recompiles")
        details.addTab(self.times_page, "Compile time")
        details.addTab(self.ladder, "Ladder")
        self.details = details

        top = QHBoxLayout()
        top.addWidget(QLabel("Arm:"))
        top.addWidget(self.arm_picker, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.matrix)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(top)
        lower_layout.addWidget(self.summary)
        lower_layout.addWidget(details, 1)
        split.addWidget(lower)
        split.setChildrenCollapsible(False)  # neither part can be dragged away
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)
        split.setSizes([130, 260])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(split)
        self._show_arm()

    # -- filling ------------------------------------------------------------------------------
    def show_session(self, model: SessionModel) -> None:
        self.session = model
        sizes = list(model.batch_sizes or sorted({row.batch_size for row in model.rows}))
        self._show_matrix(model.arms, sizes)
        self._offer_compiled_arms(model.arms)
        self._show_arm()
        self.ladder.show_session(model)

    def show_ladder(self) -> None:
        """Bring the Ladder sub-tab forward (after a Diagnose run)."""
        self.details.setCurrentWidget(self.ladder)

    def _show_matrix(self, arms: tuple[Arm, ...], sizes: list[int]) -> None:
        self.matrix.clear()
        self.matrix.setColumnCount(1 + len(sizes))
        self.matrix.setHorizontalHeaderLabels(["arm", *[f"bs {b}" for b in sizes]])
        self.matrix.setRowCount(len(arms))
        self._sizes = sizes
        for r, arm in enumerate(arms):
            self.matrix.setItem(r, 0, item(arm.name))
            by_bs = {row.batch_size: row for row in arm.rows}
            for c, bs in enumerate(sizes, start=1):
                self.matrix.setItem(r, c, matrix_item(arm, by_bs.get(bs), bs))
        self.matrix.resizeColumnsToContents()
        self._fit_matrix()

    def _fit_matrix(self) -> None:
        """The matrix keeps room for its header and up to MATRIX_ROWS rows (more scroll), so
        at 1280x720 it shows every arm of a usual run without dragging the splitter."""
        count = self.matrix.rowCount()
        shown = min(max(count, 1), MATRIX_ROWS)
        rows = sum(self.matrix.rowHeight(r) for r in range(min(shown, count)))
        rows += max(0, shown - count) * self.matrix.verticalHeader().defaultSectionSize()
        frame = 2 * self.matrix.frameWidth()
        header = self.matrix.horizontalHeader().sizeHint().height()
        scroll = self.matrix.horizontalScrollBar().sizeHint().height()
        self.matrix.setMinimumHeight(header + rows + frame + scroll)

    def _on_matrix_clicked(self, row: int, column: int) -> None:
        """The matrix drives the details: its row's arm, and the batch size of its column."""
        arms = self.session.arms
        if not 0 <= row < len(arms):
            return
        index = self.arm_picker.findText(arms[row].name)
        if index < 0:  # eager: nothing compiled to show
            self.summary.setText(f"{arms[row].name} is not compiled: pick a compiled arm.")
            return
        self.arm_picker.setCurrentIndex(index)
        if 1 <= column <= len(self._sizes):
            self.select_batch_size(self._sizes[column - 1])

    def select_batch_size(self, bs: int) -> None:
        """Select the batch size's row in the Compile time table and the first matching
        recompile, so the details follow the matrix cell clicked."""
        for table in (self.times, self.recompiles):
            match = next(
                (r for r in range(table.rowCount()) if cell_text(table, r, 0) == str(bs)), None
            )
            if match is not None:
                table.selectRow(match)

    def _offer_compiled_arms(self, arms: tuple[Arm, ...]) -> None:
        """The picker lists the compiled arms and keeps the one chosen, if it is still there."""
        current = self.arm_picker.currentText()
        self.arm_picker.blockSignals(True)
        self.arm_picker.clear()
        for arm in arms:
            if arm.compiled:
                self.arm_picker.addItem(arm.name)
        self.arm_picker.blockSignals(False)
        index = self.arm_picker.findText(current)
        self.arm_picker.setCurrentIndex(index if index >= 0 else 0)

    def _arm(self) -> Arm | None:
        name = self.arm_picker.currentText()
        return next((a for a in self.session.arms if a.name == name), None)

    def _show_arm(self) -> None:
        """Fill the lower half for the arm picked: its summary line and the tables; a table
        with nothing to list says so."""
        arm = self._arm()
        for table in (self.advice, self.breaks, self.recompiles, self.times):
            table.setRowCount(0)
        self.break_detail.clear()
        none = "No compiled arm in this session." if self.session.arms else "No session yet."
        self.summary.setText(self._summary_text(arm) if arm else none if self.session.arms else "")
        breaks = arm.graph_breaks if arm else ()
        recompiles = arm.recompiles if arm else ()
        advice = arm.advice if arm else ()
        fill(self.breaks, [graph_break_cells(gb) for gb in breaks])
        fill(self.recompiles, [recompile_cells(rc) for rc in recompiles])
        fill(self.times, [compile_time_cells(row) for row in (arm.rows if arm else ())])
        fill(self.advice, [advice_cells(a) for a in advice])
        self.advice.resizeRowsToContents()
        self.apply_advice.setVisible(any(a.apply for a in advice))
        self.advice_page.show_content(bool(advice), NO_ADVICE if arm else none)
        self.breaks_page.show_content(bool(breaks), NO_BREAKS if arm else none)
        self.recompiles_page.show_content(bool(recompiles), NO_RECOMPILES if arm else none)
        self.times_page.show_content(self.times.rowCount() > 0, NO_TIMES if arm else none)
        self.details.setTabText(0, f"Advice ({len(advice)})" if advice else "Advice")
        if self.breaks.rowCount():
            self.breaks.selectRow(0)
        if self.times.rowCount():
            self.times.selectRow(0)
        self._show_parts()

    def _show_parts(self) -> None:
        """The selected batch size's compile cost as the sum of its parts, the rest named."""
        arm = self._arm()
        selected = self.times.selectionModel().selectedRows()
        results = arm.rows if arm else ()
        chosen = (
            results[selected[0].row()] if selected and selected[0].row() < len(results) else None
        )
        row = saved_row(chosen) if chosen else {}
        self._show_compiles(chosen, arm)
        text = parts_text(row)
        bs = chosen.batch_size if chosen else None
        self.parts.setToolTip(f"other: {other_help(row)}" if text else "")
        self.parts.setText(
            f"bs {bs}: {text} s (hover for what other is)"
            if text
            else f"bs {bs}: no split of the compile cost: "
            f"{split_problem(row) or 'torch recorded no compile timer for this batch size'}."
            if row
            else ""
        )

    def _show_compiles(self, row: Row | None, arm: Arm | None) -> None:
        """Each compile of the batch size selected, the total that is its compile cost, and
        where they ran in words, with the first step's check; hidden where none is listed."""
        cells = compile_list.rows(row, arm) if row else []
        tips = compile_list.tips(row, arm) if row else []
        fill(
            self.compiles,
            [[(c, tips[i] if i < len(tips) else None) for c in r] for i, r in enumerate(cells)],
        )
        lines = compile_list.notes(row, arm)
        self.compile_case.setText("\n".join(lines))
        self.compile_case.setVisible(bool(lines))
        self.compiles.setVisible(bool(cells))

    def _summary_text(self, arm: Arm) -> str:
        parts = [
            f"{len(arm.graph_breaks)} distinct graph break(s), {len(arm.recompiles)} recompile(s)."
        ]
        explain = arm.explain
        if explain:
            parts.append(
                f"explain pre-pass: {explain.graphs} graph(s), {explain.breaks} break(s), "
                f"{explain.ops} op(s)."
            )
        for fb in arm.fallbacks:
            parts.append(f"⚠ bs {fb.batch_size}: {recompile_limit_hit(fb.frame)}.")
        frames = {str(rc.frame) for rc in arm.recompiles}
        parts += [f"{frame_text(f)}." for f in sorted(frames) if resume_explanation(f)]
        for pair in before_after(dict(self.session.data)):
            if arm.name in (pair.before, pair.after):
                parts.append(
                    f"Advice applied ({pair.apply}): {pair.after} recompiled "
                    f"{pair.recompiles_after} time(s) where {pair.before} recompiled "
                    f"{pair.recompiles_before} time(s)."
                )
        if arm.error:
            parts.append(f"⚠ {arm.error.message}")
        return " ".join(parts)

    def _show_break(self) -> None:
        arm = self._arm()
        rows = self.breaks.selectionModel().selectedRows() if self.breaks.selectionModel() else []
        if arm is None or not rows:
            return
        gb = arm.graph_breaks[rows[0].row()]
        text = [source_context(gb.file, gb.line), "", f"Reason: {gb.reason}"]
        if gb.explanation:
            text.append(f"Explanation: {gb.explanation}")
        text += [f"Hint: {h}" for h in gb.hints]
        self.break_detail.setPlainText("\n".join(text))
