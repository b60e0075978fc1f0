"""Watch the inspected model file and say when it changed on disk, once per burst of writes.

An editor saves in several writes, or replaces the file (write a copy, rename it over the
original), which drops it from QFileSystemWatcher; so a change is reported after a quiet
DEBOUNCE_MS, and the path is watched again if the watcher let it go.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

DEBOUNCE_MS = 300
MISSING_RETRIES = 10  # a file gone mid-replace is looked for again, for up to ~3 s


class ModelFileWatch(QObject):
    changedOnDisk = Signal(str)  # the watched path, after a quiet DEBOUNCE_MS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = ""
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_changed)
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(DEBOUNCE_MS)
        self._quiet.timeout.connect(self._settled)
        self._missing = 0

    def watch(self, path: str) -> None:
        """Watch path (and no other file); the same path again is no change."""
        if path == self.path and path in self._watcher.files():
            return
        self.stop()
        self.path = path
        if os.path.isfile(path):
            self._watcher.addPath(path)

    def stop(self) -> None:
        self._quiet.stop()
        if self._watcher.files():
            self._watcher.removePaths(self._watcher.files())
        self.path = ""

    def _on_changed(self, path: str) -> None:
        if path == self.path:
            self._quiet.start()  # restarted by each write of a burst

    def _settled(self) -> None:
        if not self.path:
            return
        if not os.path.isfile(self.path):
            self._missing += 1
            if self._missing <= MISSING_RETRIES:
                self._quiet.start()  # between an editor's delete and its rename
            return
        self._missing = 0
        if self.path not in self._watcher.files():
            self._watcher.addPath(self.path)  # replaced by a rename: watch the new file
        self.changedOnDisk.emit(self.path)
