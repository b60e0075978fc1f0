"""Sessions read back from the store: its session runs listed (newest first) by their tags, and
a session's session.json and steps.csv downloaded into this machine's cache of the store (a
sessions folder of its own: the history's index reads it as it reads the local one). A session
already cached is never downloaded again: a run's artifacts do not change once it is logged.
An http(s) store is listed over MLflow's REST API (rest.py), so a read whose sessions are all
cached never imports MLflow; its client is imported only to download, or for other URIs."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tcprof.profiler.folders.files import SESSION_JSON, STEPS_CSV
from tcprof.profiler.team_store.address import (
    StoreError,
    cache_dir,
    quick_failures,
    split_name,
)
from tcprof.profiler.team_store.rest import RestStore, RunRecord, speaks_rest
from tcprof.profiler.trackers.mlflow_names import (
    BRANCH_TAG,
    COMMIT_TAG,
    PARENT_TAG,
    SERIES_TAG,
    SESSION_TAG,
    VERSION_TAG,
    experiment_name,
    probe,
)

MARKER = "store-run.json"  # in a cached folder: which run of which store it holds
MAX_RUNS = 5000


@dataclass(frozen=True)
class StoredRun:
    """One session in the store, as its session run's tags and times tell it."""

    run_id: str
    session: str
    started_at: float | None  # seconds, as session.json's
    series: str | None = None
    branch: str | None = None
    commit: str | None = None
    version: str | None = None
    user: str | None = None

    @classmethod
    def of(cls, run: RunRecord) -> StoredRun:
        tags, start = run.tags, run.start_time
        return cls(
            run_id=run.run_id,
            session=str(tags.get(SESSION_TAG) or run.run_name),
            started_at=start / 1000 if start else None,
            series=tags.get(SERIES_TAG),
            branch=tags.get(BRANCH_TAG),
            commit=tags.get(COMMIT_TAG),
            version=tags.get(VERSION_TAG),
            user=tags.get("mlflow.user"),
        )


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "\\'") + "'"


class StoreReader:
    """One store, read: `runs` lists its sessions, `fetch` caches one, `resolve` finds one by
    its name on the command line. StoreError (one line) when the store cannot be read."""

    def __init__(self, uri: str, experiment: str | None = None) -> None:
        self.uri = uri
        self.experiment = experiment_name(experiment)
        self.cache = cache_dir(uri)
        self.rest = RestStore(uri) if speaks_rest(uri) else None
        self._client: Any = None

    @property
    def client(self) -> Any:
        """MLflow's client, imported (seconds) only when first needed: to download a session,
        or to read a store that is not an http(s) server."""
        if self._client is None:
            from mlflow.tracking import MlflowClient

            self._client = MlflowClient(tracking_uri=self.uri)
        return self._client

    def _call(self, what: str, call: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            with quick_failures():
                return call(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:  # the server down, refusing, or not a tracker at all
            first = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
            raise StoreError(f"cannot {what} the store {self.uri}: {first[:200]}") from exc

    def runs(
        self, series: str | None = None, branch: str | None = None, session: str | None = None
    ) -> list[StoredRun]:
        """The finished session runs in the store's experiment (of a series, from a branch, of
        a session's name when given), newest first."""
        # session runs only (an arm's nested run has no session tag): half the answer or less
        wanted = ["attributes.status = 'FINISHED'", f"tags.`{SESSION_TAG}` LIKE '%'"]
        if series:
            wanted.append(f"tags.`{SERIES_TAG}` = {_quoted(series)}")
        if branch:
            wanted.append(f"tags.`{BRANCH_TAG}` = {_quoted(branch)}")
        if session:
            wanted.append(f"tags.`{SESSION_TAG}` = {_quoted(session)}")
        runs = self._search(" and ".join(wanted), ["attributes.start_time DESC"])
        return [StoredRun.of(r) for r in runs if PARENT_TAG not in r.tags and SESSION_TAG in r.tags]

    def _search(self, filter_string: str, order_by: list[str]) -> list[RunRecord]:
        """The experiment's runs the filter finds: over REST, else through MLflow's client."""
        if self.rest is not None:
            found_id = self.rest.experiment_id(self.experiment)
            if found_id is None:
                return []
            return self.rest.search(found_id, filter_string, order_by, MAX_RUNS)
        try:
            probe(self.uri)
        except ConnectionError as exc:
            raise StoreError(str(exc)) from exc
        found = self._call("read", self.client.get_experiment_by_name, self.experiment)
        if found is None:
            return []
        runs = self._call(
            "search",
            self.client.search_runs,
            [found.experiment_id],
            filter_string=filter_string,
            max_results=MAX_RUNS,
            order_by=order_by,
        )
        return [RunRecord.from_entity(r) for r in runs]

    def latest(self, series: str, branch: str, not_session: str | None = None) -> StoredRun | None:
        """The newest session of `series` logged from `branch` (not `not_session` itself)."""
        runs = self.runs(series=series, branch=branch)
        return next((r for r in runs if r.session != not_session), None)

    def fetch(self, run: StoredRun) -> tuple[Path, bool]:
        """The cached folder of a session run, and whether it was downloaded now (False: it
        was cached already)."""
        folder = self._folder_for(run)
        if (folder / SESSION_JSON).is_file() and _marker(folder) == run.run_id:
            return folder, False
        self.cache.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".fetch-", dir=self.cache))
        try:  # downloaded beside, then renamed: a cut-off download is never taken as cached
            names = {a.path for a in self._call("list", self.client.list_artifacts, run.run_id)}
            if SESSION_JSON not in names:
                raise StoreError(f"run {run.run_id} in {self.uri} holds no {SESSION_JSON}")
            for name in (SESSION_JSON, STEPS_CSV):
                if name in names:
                    self._call(
                        "download from",
                        self.client.download_artifacts,
                        run.run_id,
                        name,
                        str(scratch),
                    )
            marker = {"run_id": run.run_id, "uri": self.uri, "session": run.session}
            (scratch / MARKER).write_text(json.dumps(marker), encoding="utf-8")
            shutil.rmtree(folder, ignore_errors=True)
            scratch.rename(folder)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return folder, True

    def _folder_for(self, run: StoredRun) -> Path:
        """The session's name, unless another run of that name is cached there already."""
        folder = self.cache / run.session
        held = _marker(folder)
        if held is None or held == run.run_id:
            return folder
        return self.cache / f"{run.session}-{run.run_id[:8]}"

    def sync(self) -> list[Path]:
        """Every session of the store cached (only the new ones downloaded); their folders."""
        return [self.fetch(run)[0] for run in self.runs()]

    def resolve(self, text: str) -> Path:
        """The cached folder of the session `text` names (`store:NAME` or `mlflow:RUN_ID`)."""
        kind, value = split_name(text)
        if kind == "run":
            if self.rest is not None:
                run = self.rest.run(value)
            else:
                run = RunRecord.from_entity(self._call("read", self.client.get_run, value))
            if PARENT_TAG in run.tags or SESSION_TAG not in run.tags:
                raise StoreError(f"{text}: run {value} is not a tcprof session's run")
            return self.fetch(StoredRun.of(run))[0]
        named = self.runs(session=value)
        if not named:
            raise StoreError(f"{text}: no session named {value} in {self.uri}")
        return self.fetch(named[0])[0]


def _marker(folder: Path) -> str | None:
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    run_id = data.get("run_id") if isinstance(data, dict) else None
    return str(run_id) if run_id else None
