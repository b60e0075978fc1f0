"""The inspected model file is watched: a burst of writes is one change, an editor's replace
keeps it watched, and a model from a session is not watched until the user trusts it. (The
window's re-inspection on a change is in test_errors.py, with a real inspection.)"""

from __future__ import annotations

import os

from tcprof.app.setup.model_watch import ModelFileWatch
from tests.app.conftest import write_model, write_session


def test_a_burst_of_writes_is_one_change_and_a_replaced_file_stays_watched(qtbot, tmp_path):
    path = tmp_path / "model.py"
    path.write_text("a = 1\n")
    watch = ModelFileWatch()
    watch.watch(str(path))
    seen: list[str] = []
    watch.changedOnDisk.connect(seen.append)
    for n in range(3):  # an editor saving in several writes
        path.write_text(f"a = {n}\n")
    qtbot.waitUntil(lambda: seen == [str(path)])
    copy = tmp_path / "model.py.swp"  # an editor that writes a copy and renames it over
    copy.write_text("a = 5\n")
    os.replace(copy, path)
    qtbot.waitUntil(lambda: len(seen) == 2)
    path.write_text("a = 6\n")  # still watched after the rename
    qtbot.waitUntil(lambda: len(seen) == 3)
    watch.stop()
    path.write_text("a = 7\n")
    assert watch.path == "" and not watch._watcher.files()


def test_a_model_from_a_session_is_not_watched_until_trusted(make_window, tmp_path):
    model = write_model(tmp_path, "m.py", "import torch.nn as nn\n")
    write_session(tmp_path / "saved", 1_700_000_000.0, config={"source": {"path": model}})
    window = make_window(background=False)
    picker = window.setup.model
    assert picker.watch.path == picker.current_path()  # the example the window starts with
    assert window.open_path(str(tmp_path / "saved"))
    assert picker.current_path() == model and picker.watch.path == ""
    picker.trust()
    assert picker.watch.path == model
