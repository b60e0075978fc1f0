"""The "Timeline" tab: where the run's time went (session.json's `timeline`), one lane per
process drawn with QPainter in the reports' category colours, and the totals line, from the
session model's typed `Timeline` (model/timeline.py). A session from before the timeline says it
has none."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tcprof.profiler.analysis.timeline import CATEGORIES
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.model.timeline import Lane, Timeline
from tcprof.profiler.protocol import units
from tcprof.profiler.report.palette import CATEGORY_COLOURS
from tcprof.profiler.report.sections.timeline import lane_label, summary_line, timeline_of

EMPTY = "This session has no timeline (it was recorded before tcprof kept one)."
LANE_H, GAP, LABEL_W = 14, 4, 130


class TimelineChart(QWidget):
    """The lanes: each span a rectangle of its category's colour on the run's wall clock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lanes: tuple[Lane, ...] = ()
        self.wall = 0.0

    def show_timeline(self, timeline: Timeline | None) -> None:
        self.lanes = timeline.lanes if timeline is not None else ()
        self.wall = units.number(timeline.wall_s if timeline is not None else None) or 0.0
        self.setMinimumHeight(len(self.lanes) * (LANE_H + GAP) + 24)
        self.update()

    def span_rects(self) -> list[tuple[QRectF, str]]:
        """Each span's rectangle and category, in widget coordinates (drawn and tested)."""
        width = max(self.width() - LABEL_W - 8, 1)
        out = []
        for i, lane in enumerate(self.lanes):
            y = 4 + i * (LANE_H + GAP)
            for span in lane.spans:
                start = units.number(span.start) or 0.0
                end = units.number(span.end) or start
                x0 = LABEL_W + start / self.wall * width if self.wall else LABEL_W
                x1 = LABEL_W + end / self.wall * width if self.wall else LABEL_W
                out.append((QRectF(x0, y, max(x1 - x0, 0.5), LANE_H), str(span.category)))
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().text().color())
        for i, lane in enumerate(self.lanes):
            y = 4 + i * (LANE_H + GAP)
            painter.drawText(
                QRectF(0, y, LABEL_W - 6, LANE_H),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                lane_label(lane),
            )
        painter.setPen(Qt.PenStyle.NoPen)
        for rect, category in self.span_rects():
            painter.fillRect(rect, QColor(CATEGORY_COLOURS.get(category, "#999999")))
        painter.end()


class TimelineView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.totals = QLabel(EMPTY)
        self.totals.setWordWrap(True)
        self.chart = TimelineChart()
        legend = " ".join(
            f'<span style="color:{CATEGORY_COLOURS[c]}">■</span> {c}' for c in CATEGORIES
        )
        self.legend = QLabel(legend)
        self.legend.setStyleSheet("font-size: 8pt")
        layout = QVBoxLayout(self)
        layout.addWidget(self.totals)
        layout.addWidget(self.chart)
        layout.addWidget(self.legend)
        layout.addStretch(1)

    def show_session(self, session: SessionModel) -> bool:
        """Fill the tab; whether the session has a timeline (the tab is shown only then)."""
        timeline = timeline_of(session)
        self.totals.setText(summary_line(session) or EMPTY)
        self.chart.show_timeline(timeline)
        self.legend.setVisible(timeline is not None)
        return timeline is not None
