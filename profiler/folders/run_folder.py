"""The folder a recorded run writes into, chosen and locked before the run starts.

A run writes into the folder it was given (`tcprof run --out`) or a new folder under the
sessions folder (profiler/folders/home.py). Before any worker starts, the folder is tried (a file
where it should be is one line), a folder that holds an earlier run is refused unless forced, and
the folder is locked so recovery leaves it alone (profiler/folders/run_lock.py).
"""

from __future__ import annotations

from pathlib import Path

from tcprof.profiler.folders import files as session_files
from tcprof.profiler.folders import home as paths
from tcprof.profiler.folders.run_lock import RunLock


def open_run_folder(
    out: str | Path | None, force: bool = False, label: str = ""
) -> tuple[Path, RunLock]:
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
