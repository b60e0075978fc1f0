"""Keeping the sessions folder tidy: rename, delete (to the system trash where there is one) and
show a session folder in the file manager.

A session's name is its folder's name. Renaming renames the folder: session.json stores every
path relative to its folder, so nothing inside needs rewriting, the name is what the file
manager, `tcprof compare` and the Sessions list all show, and a session copied elsewhere keeps
it. A folder a live run holds (its run lock) is neither renamed nor deleted.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QFile, QUrl
from PySide6.QtGui import QDesktopServices

from tcprof.profiler.folders.run_lock import is_locked

FORBIDDEN = set('/\\:*?"<>|') | {"\0"}


class FolderError(OSError):
    """Why a session folder was left as it was, in a sentence for the user."""


def _check_free(folder: Path) -> None:
    if is_locked(folder):
        raise FolderError(f"{folder.name} belongs to a run in progress")


def rename_session(folder: Path, name: str) -> Path:
    """The folder renamed in place (same parent); its new path."""
    name = name.strip()
    if not name or name in (".", "..") or FORBIDDEN & set(name):
        raise FolderError(f'“{name}” cannot be a folder name (no / \\ : * ? " < > |)')
    target = folder.with_name(name)
    if target == folder:
        return folder
    if target.exists():
        raise FolderError(f"there is already a session called {name}")
    _check_free(folder)
    try:
        folder.rename(target)
    except OSError as exc:
        raise FolderError(f"cannot rename {folder.name}: {exc.strerror or exc}") from exc
    return target


def move_to_trash(folder: Path) -> bool:
    """Move the folder to the system trash (freedesktop Trash, the Recycle Bin, the macOS
    Trash); False when there is none for it (the caller asks before deleting for good)."""
    _check_free(folder)
    return bool(QFile.moveToTrash(str(folder)))


def delete_permanently(folder: Path) -> None:
    _check_free(folder)
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        raise FolderError(f"cannot delete {folder.name}: {exc.strerror or exc}") from exc


def reveal(folder: Path) -> bool:
    """Open the folder in the system's file manager."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
