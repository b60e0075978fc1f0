"""Colours and plot styling that read well on both light and dark system themes.

Arm colours come from profiler/report/palette.py, which report.html reads too (colour-blind safe,
mid-tones that keep contrast on white and on near-black backgrounds). pyqtgraph's own defaults (black background)
ignore the system palette, so they are set from the application palette here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from tcprof.profiler.report.palette import ARM_COLOURS, arm_colours, is_eager

if TYPE_CHECKING:
    from tcprof.profiler.model.session import SessionModel


def arm_colour(index: int) -> QColor:
    """The colour of arm `index` when it is not known which arms are eager (tables)."""
    return QColor(ARM_COLOURS[index % len(ARM_COLOURS)])


def arm_qcolours(eager: list[bool]) -> list[QColor]:
    """The colours of a run's arms: the first eager arm blue, the others in order."""
    return [QColor(c) for c in arm_colours(eager)]


def session_arm_colour(session: SessionModel, index: int) -> QColor:
    """Arm `index` of a session in the colour its plots and report.html give it."""
    colours = arm_qcolours([is_eager(a.backend or a.name) for a in session.arms])
    return colours[index] if 0 <= index < len(colours) else arm_colour(index)


def is_dark() -> bool:
    app = QApplication.instance()
    if not isinstance(app, QApplication):  # none yet, or a QCoreApplication: no palette
        return False
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def configure_pyqtgraph() -> None:
    """Follow the system palette; no antialiasing or OpenGL (cheap redraws of long curves)."""
    import pyqtgraph as pg  # only the plots need it; importing it costs ~0.6 s at start-up

    app = QApplication.instance()
    options: dict[str, object] = {"antialias": False, "useOpenGL": False}
    if isinstance(app, QApplication):
        pal = app.palette()
        options["background"] = pal.color(QPalette.ColorRole.Base)
        options["foreground"] = pal.color(QPalette.ColorRole.Text)
    pg.setConfigOptions(**options)


def error_colour() -> str:
    return "#ff6b6b" if is_dark() else "#b00020"


def muted_colour() -> str:
    return "#a0a0a0" if is_dark() else "#606060"


def good_colour() -> str:
    return "#6bd68a" if is_dark() else "#1b7a3a"
