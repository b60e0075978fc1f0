"""The plots' crosshair: on hover, a vertical line through the hovered step (or moment, on the
time axis) on every plot and, on each, a readout of every shown arm's value there (step time,
throughput, memory).

Work happens only when the mouse moves: a binary search per arm and series, and one text per
plot. The readout sits beside the line, on the side with room, so it never hides the point
being read, and below what `reserved_top` keeps (the compile-wait line), so it never hides that.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from tcprof.app.common.theme import muted_colour
from tcprof.app.plots.live_data import LiveData
from tcprof.app.plots.x_axis import XAxis

# What each plot reads: (series key, short name, unit, how many steps back a value still holds)
STEP_READ = (("step_ms", "", "ms", 0.5),)
THROUGHPUT_READ = (("throughput", "", "samples/s", 0.5),)
MIDDLE_READS = {  # the middle plot's choice (plot_choices.py)
    "throughput": THROUGHPUT_READ,
    "loss": (("loss", "loss", "", 0.5),),
    "own_ms": (("own_ms", "own", "ms", 0.5),),
}
CPU_MEMORY_READ = (("rss_mb", "RSS", "MB", float("inf")),)
CUDA_MEMORY_READ = (
    ("cuda_alloc_mb", "alloc", "MB", float("inf")),
    ("cuda_reserved_mb", "reserved", "MB", float("inf")),
    ("rss_mb", "RSS", "MB", float("inf")),
)
GAP = 10  # px between the line and its readout


def number_text(value: float) -> str:
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"


class Crosshair:
    """The line and readout of each plot; `show_at(step)` is what a mouse move calls."""

    def __init__(self, plots: Sequence[pg.PlotItem], scene: pg.GraphicsScene) -> None:
        self.plots = list(plots)
        self.data: LiveData | None = None
        self.colours: list[QColor] = []
        self.cuda = False
        self.step: float | None = None
        self.middle = "throughput"  # what the middle plot shows
        self.axis = XAxis()
        self.hidden: set[int] = set()  # arms the legend hid
        # Pixels at the top of plot i the readout stays under (0: none).
        self.reserved_top: Callable[[int], float] = lambda index: 0.0
        pen = pg.mkPen(muted_colour(), width=1, style=Qt.PenStyle.DotLine)
        foreground = pg.getConfigOption("foreground")
        background = QColor(pg.getConfigOption("background"))
        background.setAlpha(225)  # the curves show through a little, the text stays readable
        self.lines = []
        self.texts = []
        for plot in self.plots:
            line = pg.InfiniteLine(angle=90, movable=False, pen=pen)
            line.setZValue(20)
            line.hide()
            plot.addItem(line, ignoreBounds=True)
            text = pg.TextItem(anchor=(0, 0), color=foreground, fill=pg.mkBrush(background))
            text.setParentItem(plot.vb)  # placed in the view box's pixels, not in data units
            text.setZValue(30)
            text.hide()
            self.lines.append(line)
            self.texts.append(text)
        scene.sigMouseMoved.connect(self._moved)

    def follow(self, data: LiveData | None, colours: list[QColor], cuda: bool) -> None:
        self.data, self.colours, self.cuda = data, list(colours), cuda
        self.hide()

    def reads(self) -> tuple[tuple[tuple[str, str, str, float], ...], ...]:
        middle = MIDDLE_READS.get(self.middle, THROUGHPUT_READ)
        if middle is THROUGHPUT_READ and self.data is not None:  # a script's in its unit
            middle = (("throughput", "", f"{self.data.work_unit}/s", 0.5),)
        return (STEP_READ, middle, CUDA_MEMORY_READ if self.cuda else CPU_MEMORY_READ)

    def readout(self, plot_index: int, step: float) -> list[tuple[str, str]]:
        """(arm, its values as text) at `step` on one plot; arms with no value there are left
        out."""
        if self.data is None:
            return []
        rows = []
        for arm, trace in enumerate(self.data.arms):
            if arm in self.hidden:
                continue
            parts = []
            for key, short, unit, within in self.reads()[plot_index]:
                value = self.axis.value_at(self.data, arm, key, step, within)
                if value is not None:
                    parts.append(f"{short} {number_text(value)}".strip())
                    last_unit = unit
            if parts:
                rows.append((trace.name, f"{' · '.join(parts)} {last_unit}".rstrip()))
        return rows

    def show_at(self, step: float) -> None:
        """The line at the nearest whole step (or at the moment) on every plot, with each plot's
        readout."""
        if self.data is None:
            return
        self.step = self.axis.snap(step)
        names = [t.name for t in self.data.arms]
        for index, (plot, line, text) in enumerate(
            zip(self.plots, self.lines, self.texts, strict=True)
        ):
            line.setPos(self.step)
            line.show()
            rows = self.readout(index, self.step)
            where = html.escape(self.axis.position_text(self.step))
            parts = [f'<span style="color:{muted_colour()}">{where}</span>']
            for name, value in rows:
                colour = self.colours[names.index(name)].name() if name in names else ""
                parts.append(
                    f'<span style="color:{colour}">■</span>&nbsp;{html.escape(name)}: {value}'
                )
            # One line (a short plot has room for one), wrapped only when wider than the plot.
            text.setTextWidth(-1)
            text.setHtml('<span style="font-size:8pt">' + " &nbsp; ".join(parts) + "</span>")
            if text.boundingRect().width() > plot.vb.width():
                text.setTextWidth(plot.vb.width())
            self._place(plot, text, self.step, self.reserved_top(index))
            text.show()

    def _place(self, plot: pg.PlotItem, text: pg.TextItem, step: float, top: float = 0.0) -> None:
        """Beside the line at `step`, on the right unless the readout would run off the view
        box."""
        vb = plot.vb
        x = vb.mapViewToScene(QPointF(step, 0)).x() - vb.sceneBoundingRect().left()
        width = text.boundingRect().width()
        left = x + GAP if x + GAP + width <= vb.width() else x - GAP - width
        text.setPos(max(0.0, left), 2.0 + top)

    def hide(self) -> None:
        self.step = None
        for line, text in zip(self.lines, self.texts, strict=True):
            line.hide()
            text.hide()

    def _moved(self, pos: QPointF) -> None:
        for plot in self.plots:
            if plot.vb.sceneBoundingRect().contains(pos):
                self.show_at(plot.vb.mapSceneToView(pos).x())
                return
        self.hide()
