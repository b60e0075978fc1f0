"""The reports are engine code: importing and using them loads neither torch nor Qt."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import tcprof.profiler.cli.report_command
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tcprof.profiler.report.reproduce import render_reproducer
from tests.support.synthetic import synthetic_session
data = synthetic_session()
render_html(data); render_markdown(data); render_reproducer(data)
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'PyQt5', 'PyQt6', 'pyqtgraph'))
print(bad)
"""


def test_reports_import_neither_torch_nor_qt():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
