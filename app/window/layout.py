"""The window's layout: setup on the left (collapsible), plots above results on the right.

Sizes are chosen so that every part stays legible from 1024x640 up, with or without the error
banner: the plots keep enough height for their ticks and titles (plots_slot.MIN_HEIGHT) and
the results never less than their own content needs (Compile insight's matrix, its Arm row and
sub-tabs with a few rows of their tables), at least RESULTS_MIN_HEIGHT; no part is squeezed
below that, so nothing overlaps. When the window is too short for them all, the right side
scrolls (as the setup panel does) rather than the window refusing to be that short; no
splitter child can be dragged to nothing. The setup panel can be hidden (View menu, or the ◀
button on its header; ▶ brings it back). The splitters' states and the panel's visibility are
saved in Preferences and restored at start; a state that cannot be read, or one saved by an
older layout, gives way to the defaults, which View → Reset layout restores.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.common.settings import Preferences

SETUP_MIN_WIDTH = 300
SETUP_SHARE = 0.28  # of the window's width at most, by default
RESULTS_MIN_HEIGHT = 250  # at least; more where the results' own content needs it
RESULTS_SHARE = 0.5  # of the right side's height, by default...
RESULTS_MAX_DEFAULT_HEIGHT = 440  # ...up to this: a tall window gives the rest to the plots
LAYOUT_VERSION = 2  # bump when the splitters' children change: older states are dropped


class AtLeast(QWidget):
    """A box whose minimum height is its content's, and never under `height`: a fixed
    minimum (setMinimumHeight) would override the content's and let it be squeezed."""

    def __init__(self, height: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.at_least = height

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        hint = super().minimumSizeHint()
        return QSize(hint.width(), max(hint.height(), self.at_least))


class WindowLayout(QObject):
    """Builds the window's central widget from its parts and owns the splitters."""

    setupVisibilityChanged = Signal(bool)

    def __init__(
        self,
        window: QMainWindow,
        setup: QWidget,
        above_plots: list[QWidget],
        plots_slot: QWidget,
        results: QWidget,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.restored = False  # the splitters hold sizes read back from Preferences
        # Until the user drags a splitter (or sizes are restored), the default proportions
        # follow the window as it is resized: sizes set before the first layout are stale.
        self.following_defaults = True
        self.setup_box = self._setup_box(setup)
        self.show_setup_button = QToolButton()
        self.show_setup_button.setText("▶")
        self.show_setup_button.setToolTip("Show the setup panel (View → Setup panel)")
        self.show_setup_button.setAutoRaise(True)
        self.show_setup_button.clicked.connect(lambda: self.set_setup_visible(True))
        self.show_setup_button.hide()
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        for widget in above_plots:
            top_layout.addWidget(widget)
        top_layout.addWidget(plots_slot, 1)
        self.stale_notice = QLabel()  # above the verdict, where it is read; see stale_results.py
        self.stale_notice.setWordWrap(True)
        self.stale_notice.hide()
        results_box = self.results_box = AtLeast(RESULTS_MIN_HEIGHT)
        results_layout = QVBoxLayout(results_box)
        results_layout.setContentsMargins(0, 0, 0, 0)
        results_layout.setSpacing(0)
        results_layout.addWidget(self.stale_notice)
        results_layout.addWidget(results, 1)
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.setObjectName("right_split")
        self.right.addWidget(top)
        self.right.addWidget(results_box)
        self.right.setStretchFactor(0, 1)
        self.right.setStretchFactor(1, 1)
        right_pane = self.right_scroll = self._scrolling(self.right)
        self.main = QSplitter(Qt.Orientation.Horizontal)
        self.main.setObjectName("main_split")
        self.main.addWidget(self.setup_box)
        self.main.addWidget(right_pane)
        self.main.setStretchFactor(1, 1)
        for splitter in self.splitters().values():
            splitter.setChildrenCollapsible(False)
            splitter.splitterMoved.connect(self._dragged)
            splitter.installEventFilter(self)
        central = QWidget()
        central_layout = QHBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.show_setup_button, 0, Qt.AlignmentFlag.AlignTop)
        central_layout.addWidget(self.main, 1)
        window.setCentralWidget(central)
        self.apply_default_sizes()

    @staticmethod
    def _scrolling(right: QSplitter) -> QScrollArea:
        """The right side in a scroll area: it fills the window, and scrolls when the window is
        shorter (or narrower) than the plots' and the results' minimums."""
        scroll = QScrollArea()
        scroll.setObjectName("right_scroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(right)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        return scroll

    def results_min_height(self) -> int:
        """The least height the results box is given: its content's, at least
        RESULTS_MIN_HEIGHT."""
        return self.results_box.minimumSizeHint().height()

    def _setup_box(self, setup: QWidget) -> QWidget:
        scroll = QScrollArea()
        scroll.setWidget(setup)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        hide = QToolButton()
        hide.setText("◀")
        hide.setAutoRaise(True)
        hide.setToolTip("Hide the setup panel: more room for plots and results")
        hide.clicked.connect(lambda: self.set_setup_visible(False))
        self.hide_setup_button = hide
        header = QHBoxLayout()
        header.setContentsMargins(6, 0, 0, 0)
        header.addWidget(QLabel("<b>Setup</b>"))
        header.addStretch(1)
        header.addWidget(hide)
        box = QWidget()
        box.setMinimumWidth(SETUP_MIN_WIDTH)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(scroll, 1)
        return box

    def splitters(self) -> dict[str, QSplitter]:
        """The splitters by the name their state is saved under."""
        return {"main": self.main, "right": self.right}

    def connect_view_menu(self, show_setup: QAction, reset_layout: QAction) -> None:
        """The View menu's actions: 'Setup panel' (checkable) and 'Reset layout'. (Not named
        `connect`, which would hide QObject.connect.)"""
        show_setup.setChecked(self.setup_visible)
        show_setup.toggled.connect(self.set_setup_visible)
        self.setupVisibilityChanged.connect(show_setup.setChecked)
        reset_layout.triggered.connect(self.reset)

    # -- the setup panel ------------------------------------------------------------------------
    @property
    def setup_visible(self) -> bool:
        return not self.setup_box.isHidden()

    def set_setup_visible(self, visible: bool) -> None:
        self.setup_box.setVisible(visible)
        self.show_setup_button.setVisible(not visible)
        self.setupVisibilityChanged.emit(visible)

    # -- sizes ----------------------------------------------------------------------------------
    def apply_default_sizes(self) -> None:
        """The results get RESULTS_SHARE of the right side, within their minimum and
        RESULTS_MAX_DEFAULT_HEIGHT, the plots the rest; the setup panel its default width."""
        height = self.right.height() if self.right.isVisible() else 0
        height = height or sum(self.right.sizes()) or 600
        results = int(height * RESULTS_SHARE)
        results = max(self.results_min_height(), min(results, RESULTS_MAX_DEFAULT_HEIGHT))
        self.right.setSizes([height - results, results])
        width = self.main.width() if self.main.isVisible() else 0
        width = width or sum(self.main.sizes()) or 1250
        setup = self.default_setup_width()
        self.main.setSizes([setup, max(1, width - setup)])

    def default_setup_width(self) -> int:
        """The setup panel's own width (no horizontal scrolling), up to SETUP_SHARE of the
        window."""
        scroll = self.setup_box.findChild(QScrollArea)
        panel = scroll.widget() if scroll is not None else None
        if scroll is None or panel is None:  # the box is built with both; never so
            return SETUP_MIN_WIDTH
        wanted = panel.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
        return max(SETUP_MIN_WIDTH, min(wanted + 4, int(self.window.width() * SETUP_SHARE)))

    def reset(self) -> None:
        """View → Reset layout: default sizes, the setup panel shown."""
        self.set_setup_visible(True)
        self.apply_default_sizes()
        self.restored = False
        self.following_defaults = True

    def on_plots_built(self) -> None:
        """The real plots replaced their placeholder: default sizes, unless restored ones."""
        if self.following_defaults:
            self.apply_default_sizes()

    def _dragged(self) -> None:
        self.following_defaults = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Resize and self.following_defaults:
            self.apply_default_sizes()
        return False

    # -- persistence ----------------------------------------------------------------------------
    def save(self, prefs: Preferences) -> None:
        states = {name: s.saveState() for name, s in self.splitters().items()}
        prefs.set_layout(LAYOUT_VERSION, states, self.setup_visible)

    def restore(self, prefs: Preferences) -> bool:
        """The saved splitter states and setup visibility; False (defaults kept) when there
        are none, they are from another layout version, or one cannot be read."""
        saved: Any = prefs.layout(LAYOUT_VERSION)
        if saved is None:
            return False
        states, setup_visible = saved
        splitters = self.splitters()
        if set(states) != set(splitters):
            return False
        before = {name: s.saveState() for name, s in splitters.items()}
        for name, splitter in splitters.items():
            restored = splitter.restoreState(states[name])
            splitter.setChildrenCollapsible(False)  # restoreState brings back the saved flag
            hidden = splitter is self.main and not setup_visible  # saved as 0 wide
            shown = splitter.sizes()[1:] if hidden else splitter.sizes()
            if not restored or 0 in shown:
                for other, state in before.items():
                    splitters[other].restoreState(state)
                    splitters[other].setChildrenCollapsible(False)
                return False
        self.set_setup_visible(setup_visible)
        self.restored = True
        self.following_defaults = False
        return True
