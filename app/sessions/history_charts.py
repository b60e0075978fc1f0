"""The History view's charts: the same five as `tcprof history`'s page (speedup with its interval,
compile cost cold and warm, step time, training memory), one point per session, the x axis
labelled by commit; hovering a point names its commit, torch and date.

Drawn from the engine's `chart_data` (profiler/report/history.py), so the window and the page
plot the same numbers. Each arm keeps the colour its plots and report.html give it; batch sizes
of one arm differ by symbol.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from tcprof.app.common.theme import arm_qcolours, configure_pyqtgraph
from tcprof.profiler.protocol import units
from tcprof.profiler.report.palette import is_eager

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    field: str
    compiled_only: bool
    text: Callable[[Any], str]  # a point's figure with its unit, for the tooltip


CHARTS = (
    Chart("speedup", "Speedup (bars: 95% interval)", "speedup", True, units.ratio),
    Chart("cold", "Compile cost, cold (s)", "cold", True, units.seconds),
    Chart("warm", "Compile cost, warm (s)", "warm", True, units.seconds),
    Chart("ms", "Median step time (ms)", "ms", False, units.ms),
    Chart("memory", "Training memory (MB)", "memory", False, units.megabytes),
)
R = TypeVar("R", bound="DataclassInstance")
SYMBOLS = ("o", "s", "t", "d", "+")
POINT_SIZE = 9


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else math.nan


def _numbers(value: Any) -> tuple[float, ...]:
    return tuple(_number(v) for v in value or ())


@dataclass(frozen=True)
class ChartSession:
    """One session of the series, as a point's tooltip names it."""

    commit: str
    torch: str
    date: str


@dataclass(frozen=True)
class ChartLine:
    """One arm at one batch size: a figure per session (NaN where it was not measured)."""

    arm: str
    bs: str
    compiled: bool
    speedup: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    ms: tuple[float, ...]
    cold: tuple[float, ...]
    warm: tuple[float, ...]
    memory: tuple[float, ...]

    def figures(self, chart: Chart) -> tuple[float, ...]:
        """This line's points on `chart`."""
        by_chart = {"speedup": self.speedup, "cold": self.cold, "warm": self.warm}
        return {**by_chart, "ms": self.ms, "memory": self.memory}[chart.field]


@dataclass(frozen=True)
class ChartData:
    """The charts' sessions and lines, read once from the engine's `chart_data` (the JSON the
    history's HTML page plots too)."""

    sessions: tuple[ChartSession, ...] = ()
    lines: tuple[ChartLine, ...] = ()

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ChartData:
        """Read once from the JSON, whose keys are the records' field names (declared once, in
        the dataclasses above): a session's texts ("?" where absent), a line's figures."""
        sessions, lines = (data.get(name) or () for name in _JSON_PARTS)
        return cls(
            tuple(_record(ChartSession, s, _text) for s in sessions if isinstance(s, Mapping)),
            tuple(_record(ChartLine, ln, _figures) for ln in lines if isinstance(ln, Mapping)),
        )


_JSON_PARTS = tuple(f.name for f in fields(ChartData))
_LABELS = {"arm": str, "bs": str, "compiled": bool}  # a line's: the rest are figures


def _text(name: str, value: Any = "?") -> str:
    return str(value)


def _figures(name: str, value: Any = None) -> Any:
    return _LABELS[name](value) if name in _LABELS else _numbers(value)


def _record(record: type[R], data: Mapping[str, Any], read: Callable[[str, Any], Any]) -> R:
    """`record` of `data`'s values; a field `data` lacks is `read`'s default."""
    return record(**{f.name: read(f.name, *_present(data, f.name)) for f in fields(record)})


def _present(data: Mapping[str, Any], name: str) -> tuple[Any, ...]:
    return (data[name],) if name in data else ()


class HistoryCharts(QWidget):
    """Five plots in one scene: speedup across the top, the others two by two below it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        configure_pyqtgraph()
        self.scene_widget = pg.GraphicsLayoutWidget()
        self.plots: dict[str, pg.PlotItem] = {}
        self.scatters: dict[str, dict[str, pg.ScatterPlotItem]] = {}
        self.sessions: tuple[ChartSession, ...] = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scene_widget)
        self.key = pg.LabelItem(justify="center")  # the lines' names in their colours
        self.scene_widget.addItem(self.key, row=0, col=0, rowspan=1, colspan=2)
        places = {"speedup": (1, 0, 1, 2), "cold": (2, 0), "warm": (2, 1)}
        places |= {"ms": (3, 0), "memory": (3, 1)}
        for chart in CHARTS:
            row, col, *span = places[chart.name]
            plot = self.scene_widget.addPlot(
                row=row, col=col, rowspan=1, colspan=span[1] if span else 1, title=chart.title
            )
            plot.showGrid(x=False, y=True, alpha=0.25)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            self.plots[chart.name] = plot

    def show_series(self, data: ChartData, arms: list[str]) -> None:
        """Draw `chart_data`'s sessions and lines; `arms` in the session's order (colours)."""
        self.sessions = data.sessions
        colours = dict(zip(arms, arm_qcolours([is_eager(a) for a in arms]), strict=True))
        ticks = [[(i, s.commit) for i, s in enumerate(self.sessions)]]
        self.key.setText(self._key_html(data, colours))
        for chart in CHARTS:
            plot = self.plots[chart.name]
            plot.clear()
            plot.getAxis("bottom").setTicks(ticks)
            self.scatters[chart.name] = {}
            symbol_of: dict[str, int] = {}
            for line in data.lines:
                if chart.compiled_only and not line.compiled:
                    continue
                arm = line.arm
                symbol = SYMBOLS[symbol_of.setdefault(arm, 0) % len(SYMBOLS)]
                symbol_of[arm] += 1
                label = f"{arm} bs {line.bs}"
                colour = colours.get(arm) or arm_qcolours([False])[0]
                self._draw(plot, chart, line, label, colour, symbol)
            measured = any(s.getData()[0].size for s in self.scatters[chart.name].values())
            plot.setTitle(chart.title if measured else f"{chart.title}: not measured")
            plot.setXRange(-0.5, max(0.5, len(self.sessions) - 0.5), padding=0)

    @staticmethod
    def _key_html(data: ChartData, colours: dict[str, QColor]) -> str:
        """One legend for the five charts, above them: each line's symbol and name in colour."""
        names: list[str] = []
        seen: dict[str, int] = {}
        for line in data.lines:
            arm = line.arm
            n = seen[arm] = seen.get(arm, -1) + 1
            colour = colours[arm].name() if arm in colours else "#888888"
            mark = {"o": "●", "s": "■", "t": "▼", "d": "◆", "+": "+"}[SYMBOLS[n % len(SYMBOLS)]]
            names.append(f'<span style="color:{colour}">{mark} {arm} bs {line.bs}</span>')
        return "&nbsp;&nbsp;&nbsp;".join(names)

    def _draw(
        self,
        plot: pg.PlotItem,
        chart: Chart,
        line: ChartLine,
        label: str,
        colour: Any,
        symbol: str,
    ) -> None:
        ys = list(line.figures(chart))
        xs = list(range(len(ys)))
        pen = pg.mkPen(colour, width=2)
        plot.addItem(pg.PlotDataItem(xs, ys, pen=pen, connect="finite"))
        if chart.name == "speedup":
            lows, highs = line.low, line.high
            keep = [
                i for i in xs if not math.isnan(ys[i] + lows[i] + highs[i]) and lows[i] <= highs[i]
            ]
            if keep:
                plot.addItem(
                    pg.ErrorBarItem(
                        x=np.array(keep, dtype=float),
                        y=np.array([ys[i] for i in keep]),
                        top=np.array([highs[i] - ys[i] for i in keep]),
                        bottom=np.array([ys[i] - lows[i] for i in keep]),
                        beam=0.15,
                        pen=pg.mkPen(colour, width=1),
                    )
                )
        points = [(x, y) for x, y in zip(xs, ys, strict=True) if not math.isnan(y)]
        scatter = pg.ScatterPlotItem(
            x=[p[0] for p in points],
            y=[p[1] for p in points],
            data=[(label, chart.text)] * len(points),
            symbol=symbol,
            size=POINT_SIZE,
            pen=pg.mkPen(colour),
            brush=pg.mkBrush(colour),
            hoverable=True,
            tip=self.point_tip,
            name=label,
        )
        plot.addItem(scatter)
        self.scatters[chart.name][label] = scatter

    def point_tip(self, x: float, y: float, data: Any) -> str:
        """The point's line and figure, and the commit, torch and date of its session."""
        label, text = data
        i = int(round(x))
        s = self.sessions[i] if 0 <= i < len(self.sessions) else ChartSession("?", "?", "?")
        return f"{label}: {text(y)}\ncommit {s.commit} · torch {s.torch}\n{s.date}"

    def points(self, chart: str) -> dict[str, list[tuple[float, float]]]:
        """Each line's points on one chart (tests read them)."""
        out = {}
        for label, scatter in self.scatters.get(chart, {}).items():
            xs, ys = scatter.getData()
            out[label] = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]
        return out
