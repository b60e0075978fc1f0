"""The folder a headless run writes into: made or checked before the run, locked for its life,
and saved into at its end without losing what was measured.

`tcprof run` writes into --out or a new folder under the sessions folder (profiler/paths.py).
Before any worker starts, the folder is tried (a file where it should be is one line), an
--out that holds an earlier run is refused unless forced, and the folder is locked so recovery
leaves it alone (profiler/run_lock.py). At the end session.json and steps.csv come first, in
the folder or else in the temporary folder (profiler/session_files.save_session), then the
reports beside them; what fails is a line for the terminal, never an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from profiler import paths, session_files
from profiler.report.export import REPORT_FORMATS, export_reports
from profiler.run_lock import RunLock


def open_run_folder(out: str | None, force: bool, label: str) -> tuple[Path, RunLock]:
    """The run's folder, writable and locked: `out`, or a new session folder named after
    `label`. An `out` holding an earlier run is refused unless `force`, which clears the earlier
    run's files once the folder is locked. OSError (one line) when the folder cannot be used."""
    if not out:
        folder = paths.new_session_dir(label)
        return folder, RunLock(folder)
    folder = Path(out).expanduser()
    earlier = session_files.earlier_run(folder)
    if earlier is not None and not force:
        raise paths.StorageError(
            f"{folder} holds an earlier run ({earlier.name}): choose another --out, or add "
            "--force to replace it"
        )
    paths.check_writable(folder, "the session")
    lock = RunLock(folder)
    if earlier is not None:
        session_files.clear_earlier_run(folder)
    return folder, lock


def save_run(session: dict[str, Any], folder: Path) -> tuple[Path | None, list[str]]:
    """Write the session files, then the reports beside them. Returns where the session went
    (None: nowhere) and a line per problem, starting 'error:' or 'warning:'."""
    saved, problem = session_files.save_session(session, folder)
    if saved is None:
        return None, [f"error: {problem}"]
    lines = [f"warning: {problem}"] if problem else []
    try:
        export_reports(session, saved, REPORT_FORMATS)
    except OSError as exc:
        lines.append(f"warning: could not write the reports in {saved} ({exc.strerror or exc})")
    return saved, lines
