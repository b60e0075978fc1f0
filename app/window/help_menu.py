"""The Help menu: keyboard shortcuts, how to read the results, the docs folder, About.

The shortcuts are read from the window's actions, so the list cannot drift from the keys that
work. About names the versions a bug report needs; torch's comes from the environment probe
(a worker), never from importing torch here.
"""

from __future__ import annotations

import platform
import re
from importlib import metadata
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tcprof.app.window.environment_probe import cached_environment
from tcprof.profiler.model.context import Environment

CHECKOUT = Path(__file__).resolve().parents[2]  # the source checkout, when run from one
DOCS_MISSING = (
    "This installation has no docs folder: the documentation (architecture.md, methodology.md,\n"
    "benchmarks.md, session-format.md) is the docs/ folder of tcprof's source checkout, and\n"
    "README.md there explains the window and the command line (tcprof --help lists the\n"
    "commands)."
)
HOW_TO_READ = """
<h3>How to read the results</h3>
<p><b>Step time</b>: the median time of one training step (forward, loss, backward, optimizer),
measured after warm-up; lower is better. <b>Throughput</b> is samples per second.</p>
<p><b>Speedup</b>: the baseline's (first arm's) step time divided by this arm's; 1.21× is 21%
faster. The interval in brackets, [1.17–1.28], is where the true speedup lies with the
confidence the column's header states (95%, or more where the run stopped when its answer
was settled or made several comparisons): if it contains 1.0 the difference is within
noise. From two replicates on it is centred on the geometric mean of the rounds' paired
ratios and covers process-to-process variation; one round has no interval. A speedup is
quoted as a figure only when its interval is settled (its high end at most 1.5 times its
low end); a wider one reads "not settled", with what would settle it. An A/A control (an
identical twin, truth 1.00) whose own interval excludes 1.0 is flagged: differences inside
its bias band are within noise too. With several comparisons (arms or batch sizes) the
intervals are simultaneous: all of them cover their true speedups together 95% of the time
(Bonferroni), and the verdict, its colour and the break-even follow the interval shown.
Beside the verdict: how many comparisons the run made, at that family-wise level.</p>
<p><b>Compile</b>: the one-off time a compiled arm spends compiling. <b>Cold</b> starts from
empty caches (a new machine); <b>warm</b> reuses the first round's caches (a second run).
<b>Break-even</b>: how many steps the faster step takes to pay back the compile time, with the
interval the speedup's gives; "within noise" where the speedup's interval contains 1.0.</p>
<p><b>Memory</b>: peak memory during training against the baseline's, as +14% (uses more) or
−8% (uses less).</p>
<p><b>Accuracy</b>: the compiled arm's loss and gradients against eager's on the same batch,
within a tolerance; a failure means the compiled model computes something else.</p>
<p><b>Graph breaks</b>: places where TorchDynamo stopped tracing and ran Python, splitting the
model into several graphs (Compile insight shows each, with your source line). <b>Recompiles</b>:
a guard failed (a new batch size, a changed attribute) and the model was compiled again.</p>
<p>The methods are explained in docs/methodology.md (Help → Documentation folder).</p>
"""


def docs_folder() -> Path | None:
    """The docs/ folder of the checkout this runs from, or None for an installed copy."""
    docs = CHECKOUT / "docs"
    return docs if (docs / "methodology.md").is_file() else None


def tcprof_version() -> str:
    try:
        return metadata.version("tcprof")
    except metadata.PackageNotFoundError:
        pyproject = CHECKOUT / "pyproject.toml"
        found = re.search(r'^version = "([^"]+)"', _read(pyproject), re.M)
        return f"{found.group(1)} (source checkout)" if found else "unknown"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions(environment: Environment | None) -> list[tuple[str, str]]:
    """(what, version) for About; torch's from a probe's answer, if there was one."""
    torch = environment.torch if environment is not None else None
    return [
        ("tcprof", tcprof_version()),
        ("Python", platform.python_version()),
        ("PySide6", pyside_version),
        ("Qt", qVersion()),
        ("pyqtgraph", _package_version("pyqtgraph")),
        ("torch", str(torch) if torch else "not known yet (probed by a worker at start-up)"),
    ]


def shortcuts(window: QWidget) -> list[tuple[str, str]]:
    """(action, key) for every action of window with a shortcut, as its menus name it."""
    rows: dict[str, str] = {}
    for action in window.findChildren(QAction):
        keys = action.shortcut()
        if keys.isEmpty():
            continue
        name = action.text().replace("&", "").strip("▶■ …").strip()
        rows.setdefault(name, keys.toString(QKeySequence.SequenceFormat.NativeText))
    return sorted(rows.items(), key=lambda row: row[0].lower())


def _dialog(parent: QWidget, title: str, body: QWidget) -> QDialog:
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    layout = QVBoxLayout(dialog)
    layout.addWidget(body)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    dialog.open()
    return dialog


def _text(text: str, rich: bool = True) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setMinimumWidth(480)
    return label


def show_shortcuts(window: QWidget) -> QDialog:
    rows = shortcuts(window)
    table = QTableWidget(len(rows), 2)
    table.setHorizontalHeaderLabels(["Action", "Shortcut"])
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for r, (name, keys) in enumerate(rows):
        table.setItem(r, 0, QTableWidgetItem(name))
        table.setItem(r, 1, QTableWidgetItem(keys))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    table.setMinimumSize(360, 300)
    return _dialog(window, "Keyboard shortcuts", table)


def show_how_to_read(window: QWidget) -> QDialog:
    return _dialog(window, "How to read the results", _text(HOW_TO_READ))


def show_docs(window: QWidget) -> QDialog | None:
    """Open docs/ in the file manager, or say where the documentation is."""
    folder = docs_folder()
    if folder is not None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
        return None
    return _dialog(window, "Documentation", _text(DOCS_MISSING, rich=False))


def show_about(window: QWidget) -> QDialog:
    rows = "".join(
        f"<tr><td>{what}</td><td>{version}</td></tr>"
        for what, version in versions(cached_environment())
    )
    text = (
        "<h3>tcprof: Torch Compile Profiler</h3>"
        "<p>What torch.compile does to your training loop, measured.</p>"
        f"<table cellspacing='6'>{rows}</table>"
    )
    return _dialog(window, "About tcprof", _text(text))


def add_help_menu(window: QMainWindow) -> QMenu:
    """The Help menu, last in window's menu bar."""
    menu = window.menuBar().addMenu("&Help")
    entries = (
        ("Keyboard shortcuts", "Ctrl+/", show_shortcuts),
        ("How to read the results", QKeySequence.StandardKey.HelpContents, show_how_to_read),
        ("Documentation folder", None, show_docs),
        ("About tcprof", None, show_about),
    )
    for text, keys, show in entries:
        action = menu.addAction(text)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _=False, show=show: show(window))
    return menu
