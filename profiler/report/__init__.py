"""Reports made from a session dict (session.json's form): HTML, Markdown, CSV, JSON and a
standalone reproducer script. Torch-free and Qt-free, so the CLI, the GUI and tests share them."""

from __future__ import annotations

from profiler.report.export import FORMATS, export_reports
from profiler.report.html import render_html
from profiler.report.markdown import render_markdown
from profiler.report.reproduce import render_reproducer

__all__ = ["FORMATS", "export_reports", "render_html", "render_markdown", "render_reproducer"]
