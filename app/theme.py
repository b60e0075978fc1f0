"""Colours and plot styling that read well on both light and dark system themes.

Arm colours are a fixed, colour-blind-friendly cycle (Okabe-Ito), mid-tone so they keep
contrast on white and on near-black backgrounds. pyqtgraph's own defaults (black background)
ignore the system palette, so they are set from the application palette here.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

ARM_COLOURS = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # green
    "#CC79A7",  # purple
    "#D55E00",  # vermillion
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#999999",  # grey
)


def arm_colour(index: int) -> QColor:
    return QColor(ARM_COLOURS[index % len(ARM_COLOURS)])


def is_dark() -> bool:
    app = QApplication.instance()
    if app is None:
        return False
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def configure_pyqtgraph() -> None:
    """Follow the system palette; no antialiasing or OpenGL (cheap redraws of long curves)."""
    import pyqtgraph as pg  # only the plots need it; importing it costs ~0.6 s at start-up

    app = QApplication.instance()
    options = {"antialias": False, "useOpenGL": False}
    if app is not None:
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
