"""report.html and report.md link every file of the session by a path relative to the report,
so a zipped and moved session folder keeps its links; a missing file is said to be missing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tcprof.profiler.folders.files import load_session
from tcprof.profiler.model.session import SessionModel
from tcprof.profiler.report.artefacts import artefacts
from tcprof.profiler.report.export import export_reports
from tcprof.profiler.report.html import render_html
from tcprof.profiler.report.markdown import render_markdown
from tests.support.synthetic import synthetic_session


def _session_folder(folder: Path) -> dict:
    """A synthetic session whose arms wrote a tlparse report, a TORCH_TRACE log, a Chrome
    trace, weights, and a memory snapshot that is no longer there."""
    session = synthetic_session()
    session["config"]["artifacts_dir"] = str(folder)
    files = {
        "tlparse": folder / "arm-1" / "tlparse" / "rank_0" / "index.html",
        "torch_trace": folder / "arm-1" / "trace" / "rank_0.log",
        "weights": folder / "arm 1" / "weights.safetensors",  # a space, to be URL-quoted
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    trace = folder / "torch-profiler-bs8.json"
    trace.write_text("{}")
    arm = session["arms"][1]
    arm["artifacts"] = [{"kind": kind, "path": str(path)} for kind, path in files.items()]
    arm["artifacts"].append(
        {"kind": "memory_snapshot", "path": str(folder / "gone.pickle"), "batch_size": 8}
    )
    arm["results"][0]["profile"] = {"path": str(trace), "steps": 2, "top_ops": []}
    return session


def _links(text: str, pattern: str) -> list[str]:
    return re.findall(pattern, text)


def test_reports_link_each_file_relative_to_themselves_and_say_what_is_missing(tmp_path):
    folder = tmp_path / "session"
    session = _session_folder(folder)
    found = {a.kind: a for a in artefacts(SessionModel.read(session), folder)}
    assert set(found) == {
        "tlparse",
        "torch_trace",
        "weights",
        "memory_snapshot",
        "torch_profiler_trace",
    }
    assert found["memory_snapshot"].href is None
    assert found["weights"].href == "arm%201/weights.safetensors"

    export_reports(session, folder, ["html", "md", "json"])
    moved = tmp_path / "unzipped" / "elsewhere"
    shutil.copytree(folder, moved)  # as a zip opened on another machine
    shutil.rmtree(folder)
    html = (moved / "report.html").read_text()
    md = (moved / "report.md").read_text()
    hrefs = _links(html, r'<a href="([^"]+)" class="mono">')
    assert "arm-1/tlparse/rank_0/index.html" in hrefs and 'href="#files"' in html
    md_hrefs = _links(md, r"\]\(<([^>]+)>\)")
    assert sorted(hrefs) == sorted(md_hrefs) and len(hrefs) == 4
    for href in hrefs:
        assert not href.startswith("/") and (moved / href.replace("%20", " ")).is_file(), href
    assert "gone.pickle: missing" in html
    assert "- aot_eager bs=8: CUDA memory snapshot: gone.pickle (missing)" in md
    assert "gone.pickle" not in "".join(hrefs)

    # reports written again from the moved folder's session.json link the same files
    loaded = load_session(moved).session
    assert {a.href for a in artefacts(SessionModel.read(loaded), moved)} == {*hrefs, None}


def test_no_files_no_section():
    session = synthetic_session()
    assert artefacts(SessionModel.read(session)) == []
    assert 'id="files"' not in render_html(SessionModel.read(session))
    assert "**Files**" not in render_markdown(SessionModel.read(session))
