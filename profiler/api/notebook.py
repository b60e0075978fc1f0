"""A session and a run in a notebook: the session as report.html's summary and charts, and a
live progress display in the cell's output while a run goes.

The session page is report.html's own (report/html.py: its palette, its styles, its offline
uPlot charts) in an `<iframe srcdoc>`: the report's styles then restyle nothing of the notebook,
its scripts see only their page, and two sessions in one notebook do not share element ids.
IPython is imported only where a notebook already runs it (`in_notebook`).
"""

from __future__ import annotations

import html
import sys
import time
from typing import TYPE_CHECKING

from tcprof.profiler.protocol import units
from tcprof.profiler.protocol.types import Event
from tcprof.profiler.run.progress_model import ProgressModel

if TYPE_CHECKING:
    from tcprof.profiler.model.session import SessionModel

FRAME_HEIGHT_PX = 760
REFRESH_S = 0.25  # the progress display is redrawn at most this often (and on every phase)
SHOWN_LINES = 6  # the notable events the display keeps under its bar


def session_html(session: SessionModel) -> str:
    """The session as a notebook shows it: the verdict, the table and the charts."""
    from tcprof.profiler.report.html import render_summary_page

    page = render_summary_page(session)
    return (
        f'<iframe srcdoc="{html.escape(page, quote=True)}" title="tcprof session" '
        f'sandbox="allow-scripts" style="width:100%;height:{FRAME_HEIGHT_PX}px;border:0"></iframe>'
    )


def in_notebook() -> bool:
    """True inside a Jupyter kernel (an IPython shell with a kernel), never importing IPython."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class LiveDisplay:
    """The cell's progress: a bar, where the run is, and the last notable events, redrawn in
    place through one IPython display handle."""

    def __init__(self, model: ProgressModel) -> None:
        from IPython.display import HTML, display

        self.model = model
        self.lines: list[str] = []
        self._drawn = 0.0
        self._handle = display(HTML(self._render("starting")), display_id=True)

    def __call__(self, event: Event, line: str | None) -> None:
        if line:
            self.lines = [*self.lines, line][-SHOWN_LINES:]
        now = time.monotonic()
        if line or event.get("type") == "phase" or now - self._drawn >= REFRESH_S:
            self._drawn = now
            self._update(self._render(None))

    def close(self, status: str) -> None:
        self._update(self._render(status))

    def _update(self, body: str) -> None:
        from IPython.display import HTML

        if self._handle is not None:
            self._handle.update(HTML(body))

    def _render(self, ended: str | None) -> str:
        m = self.model
        where = (
            ended if ended is not None else f"{m.where()}… {units.duration(m.phase_elapsed_s())}"
        )
        items = "".join(f"<li>{html.escape(line)}</li>" for line in self.lines)
        return (
            '<div class="tcprof-progress">'
            f'<progress value="{m.fraction:.3f}" max="1" style="width:60%"></progress> '
            f"<code>{100.0 * m.fraction:5.1f}%</code> {html.escape(where)}"
            + (f'<ul style="margin:4px 0 0">{items}</ul>' if items else "")
            + "</div>"
        )
