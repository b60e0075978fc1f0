"""The run's schedule: rounds of fresh worker processes, arms taking turns in timed blocks, an
untimed accuracy pass, all folded into a SessionFold.

A run is `replicates` rounds, or with no --replicates as many as it takes to settle its
answer, at most `replicates` (stopping_check.py; the rule is analysis/stopping.py's). Each
round starts one fresh process per arm (so a round's memory
is that of one process per arm, and process-to-process variation shows up between rounds);
the arms' order across rounds follows a balanced (Williams) design (schedule.round_order). Within a round, for each batch
size, every arm first runs its first (compiling) step and warm-up; only then do the measured
blocks start, the arms taking turns (schedule.block_order) so machine drift hits them alike, and
only one worker computes at any moment (a worker also waits for the others to be idle before
a block). Where each round's compiles find their caches is cache_plan's job. After the rounds,
each compiled arm's accuracy is checked in one more, untimed process.

A sequential mode runs one arm after another with a single worker alive, for models too large
to hold twice.

On several nodes (`--nnodes M`) this is node 0's runner: the other nodes join its leader
(node_leader.py) before the first round, each distributed arm's torchrun spans every node, and
the followers are told when the run is over. The other nodes run no Runner (node_follower.py).

Errors: a fatal one ends the arm's round (no more batch sizes) and the arm is neither started
nor announced in later rounds (a round with no arm left is not announced at all); the run goes
on with the others and ends `completed_with_errors`. A worker that
ends unasked or stalls is such an error (arm_supervisor). A non-fatal one (out of memory) drops
that batch size for that arm, in this round and the later ones; the arm goes on with its next
batch size. Whatever ends the run, an exception included, ends every worker first.

The runner never imports torch or Qt; the workers are reached through arm_supervisor, and
listeners receive every event in the caller's thread.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from tcprof.profiler.analysis import schedule
from tcprof.profiler.config import (
    RunConfig,
    arm_artifacts_dir,
    check_output_folder,
    resolve_threads,
    threads_per_process,
)
from tcprof.profiler.config.provenance import run_provenance
from tcprof.profiler.distributed.node_leader import NodeLeader, NodesError
from tcprof.profiler.distributed.torchrun_worker import DistributedWorker
from tcprof.profiler.process.handle import Inbox, WorkerFactory, WorkerHandle
from tcprof.profiler.process.local import WorkerProcess
from tcprof.profiler.process.pool import WorkerPool
from tcprof.profiler.process.stall_watch import CpuTime, process_tree_cpu_s
from tcprof.profiler.protocol.types import Listener
from tcprof.profiler.remote.worker import remove_remote_cache, start_remote_worker
from tcprof.profiler.run import draws
from tcprof.profiler.run.apply_advice import apply_advice
from tcprof.profiler.run.arm_supervisor import ArmState, ArmSupervisor, RunStopped
from tcprof.profiler.run.cache_plan import CacheFolders
from tcprof.profiler.run.debug_artifacts import debug_env, render_tlparse
from tcprof.profiler.run.stopping_check import StopCheck
from tcprof.profiler.session.fold import SessionFold
from tcprof.profiler.session.records import ACCURACY_PASS


def split_steps(steps: int, blocks: int) -> list[int]:
    """Split measured steps into at most `blocks` near-equal blocks (none empty)."""
    blocks = max(1, min(blocks, steps))
    base, extra = divmod(steps, blocks)
    return [base + (1 if i < extra else 0) for i in range(blocks)]


def start_worker_process(
    index: int, inbox: Inbox, env: dict[str, str], timed: bool = True, python: str | None = None
) -> WorkerProcess:
    """The real WorkerFactory: a `python -m tcprof.profiler.worker` (forked when untimed), or
    the arm's own interpreter's (`python=`: never forked)."""
    return WorkerProcess(index, inbox, extra_env=env, timed=timed, python=python)


class Runner:
    def __init__(
        self,
        config: RunConfig,
        listeners: list[Listener] | None = None,
        clock: Callable[[], float] = time.monotonic,
        pool: WorkerPool | None = None,
        worker_factory: WorkerFactory | None = None,
        cpu_time: CpuTime = process_tree_cpu_s,
        nodes: NodeLeader | None = None,
    ) -> None:
        """pool: pre-started, warmed-up workers for the first round instead of fresh ones.
        worker_factory: how a worker is started (tests pass a scripted fake). cpu_time: a
        worker's CPU seconds, for the stall timeout (tests pass their own). nodes: the other
        nodes, already following (--apply-advice's run after the main one on several nodes)."""
        check_output_folder(config)
        # Recorded in the session: every worker uses the same (on --host: that host's cores,
        # resolved there).
        if config.threads is None and not config.host:
            concurrent = 1  # arms take turns, so one process computes at a time
            config = dataclasses.replace(config, threads=resolve_threads(concurrent))
        self.config = config
        self.listeners = list(listeners or [])
        self.session = SessionFold()
        self._clock = clock
        self._cancel = threading.Event()
        self._specs = config.run_arms
        self._factory = worker_factory
        self._follow_up: Runner | None = None  # --apply-advice's run of the fixed arms
        # seconds the recorded run's check took before this run started (run/recorded.py):
        # the timeline shows it as its own span before round 0
        self.preflight_s: float | None = None
        self._workers = ArmSupervisor(
            worker_factory or self._start_worker,
            self._publish,
            self._cancel,
            clock,
            timeout_s=config.timeout_s,
            pool=pool,
            stall_timeout_s=config.stall_timeout_s,
            cpu_time=cpu_time,
        )
        self._caches: CacheFolders | None = None
        self._nodes = nodes  # node 0 of a run on several nodes: the other nodes follow it
        self._owns_nodes = False  # this runner met them (and tells them when the run is over)
        self._dead: set[int] = set()  # arms that failed fatally: not started again
        self._failed_sizes: set[tuple[int, int]] = set()  # (arm, batch size) that failed
        self._t0 = 0.0
        self._round_seed = config.seed  # the round's seed (draws.py): weights and batches
        self._waits: draws.BlockWaits | None = None  # the round's untimed waits before blocks
        self._stop = StopCheck(config)  # no --replicates: stop when settled

    # -- public -------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the run from any thread; the run loop ends the workers within about a second."""
        self._cancel.set()
        if self._follow_up is not None:
            self._follow_up.cancel()

    def run(self) -> SessionFold:
        try:
            return self._run()
        except BaseException:  # Ctrl+C, or a failure of the engine itself (even in publishing)
            self._workers.kill_all()  # no worker outlives the run, whatever ended it
            if self._caches is not None:
                self._caches.remove()
            raise
        finally:
            if self._nodes is not None and self._owns_nodes:
                self._nodes.finish(self.session.status)

    def _run(self) -> SessionFold:
        self._t0 = self._clock()
        if self.config.timeout_s:
            self._workers.deadline = self._t0 + self.config.timeout_s
        config = self.config.to_dict()
        self._publish(
            {
                "type": "run_start",
                "config": config,
                "wall_time": time.time(),
                "provenance": run_provenance(config),
                "seeding": draws.seeding(self.config),
                **({"preflight_s": self.preflight_s} if self.preflight_s is not None else {}),
            }
        )
        self._caches = CacheFolders(self.config)
        status = "completed"
        try:
            self._meet_other_nodes()
            for round_no, cache in enumerate(self._caches.plan):
                self._run_round(round_no, cache)
                if self._stop.after_round(self.session, round_no + 1, self._clock() - self._t0):
                    break
            if self.config.accuracy:
                self._run_accuracy()
            if self._dead:
                status = "completed_with_errors"
        except RunStopped as stop:
            status = stop.status
        except NodesError as exc:
            self._publish({"type": "error", "kind": "rendezvous", "message": str(exc)})
            status = "completed_with_errors"
        except KeyboardInterrupt:
            status = "stopped"
            self._workers.shutdown(force=True)
            self._finish_run(status)
            raise
        finally:
            if status in ("stopped", "timeout"):
                self._workers.shutdown(force=True)
        self._workers.shutdown(force=False)
        if self.config.apply_advice and status in ("completed", "completed_with_errors"):
            status = self._apply_advice(status)
        if self.config.debug.trace:
            for index in range(len(self._specs)):
                for event in render_tlparse(arm_artifacts_dir(self.config, index)):
                    self._publish({**event, "arm": index})
        self._finish_run(status)
        return self.session

    def _meet_other_nodes(self) -> None:
        """Node 0 of several: wait until every other node follows (NodesError if not)."""
        if self.config.nnodes == 1 or self._factory is not None or self._nodes is not None:
            return
        if self.config.node_rank != 0:
            raise NodesError(
                f"node {self.config.node_rank} follows node 0 from the command line "
                f"(tcprof run ... --node-rank {self.config.node_rank}); this runs node 0"
            )
        self._nodes, self._owns_nodes = NodeLeader(self.config), True  # NodesError: port taken
        waiting = f"waiting for {self.config.nnodes - 1} other node(s) to join at "
        self._publish(
            {"type": "log", "stream": "tcprof", "text": waiting + str(self.config.rdzv_endpoint)}
        )
        self._nodes.wait_for_followers()

    def _apply_advice(self, status: str) -> str:
        """Run the fixes tcprof can apply itself into this session (tcprof.profiler.run.apply_advice)."""

        def make_runner(config: RunConfig, listeners: list[Listener]) -> Runner:
            self._follow_up = Runner(
                config,
                listeners,
                clock=self._clock,
                worker_factory=self._factory,
                nodes=self._nodes,
            )
            if self._cancel.is_set():
                self._follow_up.cancel()
            return self._follow_up

        apply_advice(self.session, self.config, self.listeners, make_runner)
        follow = self._follow_up.session.status if self._follow_up else None
        return follow if follow in ("stopped", "timeout") else status

    def _finish_run(self, status: str) -> None:
        if self._caches is not None:
            self._caches.remove()
            if self.config.host and self._caches.root is not None:  # its twin there
                remove_remote_cache(self.config, self._caches.root.name)
        end: dict[str, Any] = {"type": "run_end", "status": status, "wall_time": time.time()}
        stopped = self._stop.record()
        if stopped is not None:
            end["stopping"] = stopped
        self._publish(end)

    # -- rounds -------------------------------------------------------------------------------
    def _run_round(self, round_no: int, cache: str) -> None:
        """A round of the arms still alive; none left (each failed in a way that repeats), no
        round: nothing is started and nothing announced."""
        order = schedule.round_order(len(self._specs), round_no, self.config.seed)
        order = [i for i in order if i not in self._dead]
        if not order:
            return
        arms = self._workers.begin(round_no, self._specs)
        self._round_seed = draws.round_seed(self.config.seed, round_no)
        self._waits = draws.BlockWaits(self.config.seed, round_no)
        self._publish(
            {
                "type": "round_start",
                "replicate": round_no,
                "cache": cache,
                "order": [self._specs[i].name for i in order],
                "seed": self._round_seed,
            }
        )
        if self.config.sequential:
            self._round_sequential([arms[i] for i in order], round_no, cache)
        else:
            self._round_interleaved([arms[i] for i in order], round_no, cache)
        waited = round(self._waits.total_s, 4)
        self._publish({"type": "round_end", "replicate": round_no, "block_wait_s": waited})

    def _round_interleaved(self, arms: list[ArmState], round_no: int, cache: str) -> None:
        order = [arm.index for arm in arms]
        by_index = {arm.index: arm for arm in arms}
        for arm in arms:
            self._start(arm, cache, pooled=round_no == 0)
        for arm in arms:  # all load in parallel; nothing is timed yet
            self._workers.send(arm, self._load_command(arm, cache, self._round_seed))
        for arm in arms:
            self._workers.await_done(arm)
        for bs in self.config.batch_sizes:
            ready = {arm.index: self._prepare(arm, bs) for arm in arms}  # compiles end first
            for block, n in enumerate(split_steps(self.config.steps, self.config.blocks)):
                for i in schedule.block_order(order, block):
                    if ready[i] and not self._measure(by_index[i], bs, n, block):
                        ready[i] = False
            for arm in arms:
                if ready[arm.index] and not arm.failed:
                    self._finish(arm, bs, round_no)
        for arm in arms:
            self._after_round(arm, round_no, cache)

    def _round_sequential(self, arms: list[ArmState], round_no: int, cache: str) -> None:
        for arm in arms:
            self._start(arm, cache, pooled=round_no == 0)
            self._workers.send(arm, self._load_command(arm, cache, self._round_seed))
            self._workers.await_done(arm)
            for bs in self.config.batch_sizes:
                if arm.failed:
                    break
                if not self._prepare(arm, bs):
                    continue
                ok = all(
                    self._measure(arm, bs, n, block)
                    for block, n in enumerate(split_steps(self.config.steps, self.config.blocks))
                )
                if ok:
                    self._finish(arm, bs, round_no)
            self._after_round(arm, round_no, cache)

    def _prepare(self, arm: ArmState, bs: int) -> bool:
        if arm.failed or (arm.index, bs) in self._failed_sizes:
            return False
        ok = self._workers.command(arm, {"cmd": "prepare", "batch_size": bs})
        if not ok:
            self._failed_sizes.add((arm.index, bs))
        return ok

    def _measure(self, arm: ArmState, bs: int, steps: int, block: int) -> bool:
        command = {"cmd": "measure", "batch_size": bs, "steps": steps, "block": block}
        if self._waits is not None:  # untimed, before the block (draws.py)
            command["wait_s"] = self._waits.next()
        ok = self._workers.command(arm, {**command, "peers": self._workers.peer_pids(arm)})
        if not ok:
            self._failed_sizes.add((arm.index, bs))
        return ok

    def _finish(self, arm: ArmState, bs: int, round_no: int) -> None:
        """A batch size's peaks and insight; the untimed extras only in the first round."""
        command = {"cmd": "finish", "batch_size": bs, "detail": round_no == 0}
        # the torch.profiler pass waits for a quiet machine, as a timed block does
        self._workers.command(arm, {**command, "peers": self._workers.peer_pids(arm)})

    def _after_round(self, arm: ArmState, round_no: int, cache: str) -> None:
        """Portable cache artifacts after the cold round, weights after the last; then exit."""
        if arm.failed:
            self._dead.add(arm.index)
        else:
            self._save_portable_cache(arm, cache)
            if self._stop.may_be_last(round_no + 1, self.config.replicates):
                self._save_weights(arm)
        self._workers.close(arm)

    def _save_portable_cache(self, arm: ArmState, cache: str) -> None:
        assert self._caches is not None
        if not self._caches.saves_portable(arm.spec, cache):
            return
        path = self._caches.artifacts_file(arm.index)
        if self._workers.command(arm, {"cmd": "save_cache", "path": str(path)}) and path.exists():
            self._caches.mark_saved(arm.index)

    def _save_weights(self, arm: ArmState) -> None:
        if self.config.save_weights and not self._cancel.is_set() and not arm.exited:
            self._workers.command(arm, {"cmd": "save_weights", "format": self.config.save_weights})

    def _run_accuracy(self) -> None:
        """One untimed process per compiled arm: its compiles never touch the timed processes'
        dynamo state (recompile counts, the recompile limit, the cold cache)."""
        for arm in self._workers.begin(ACCURACY_PASS, self._specs):
            sizes = [
                bs for bs in self.config.batch_sizes if (arm.index, bs) not in self._failed_sizes
            ]
            if not arm.spec.compiled or arm.index in self._dead or not sizes:
                continue
            self._start(arm, "warm", pooled=False)
            # one seed for every arm: the run's own, as round 0's
            self._workers.send(arm, self._load_command(arm, "warm", self.config.seed))
            if self._workers.await_done(arm):
                self._workers.command(arm, {"cmd": "accuracy", "batch_sizes": sizes})
            self._workers.close(arm)

    # -- workers ------------------------------------------------------------------------------
    def _distributed(self, index: int) -> bool:
        """A distributed arm runs under torchrun, its untimed accuracy check too (every rank
        checks its wrapped step: see profiler/worker/rank_accuracy.py)."""
        return self.config.parallel_of(self._specs[index]) != "none"

    def _start_worker(self, index: int, inbox: Inbox, env: dict[str, str]) -> WorkerHandle:
        """The real WorkerFactory: a torchrun job for a distributed arm, else one process;
        either on --host over ssh."""
        if self.config.host:
            nproc = self.config.nproc if self._distributed(index) else 0
            root = str(self._caches.root) if self._caches is not None else None
            return start_remote_worker(
                self.config, index, inbox, env, nproc, root, self._threads(index)
            )
        if not self._distributed(index):
            timed = self._workers.replicate != ACCURACY_PASS
            python = self._specs[index].python
            return start_worker_process(index, inbox, env, timed=timed, python=python)
        replicate = self._workers.replicate
        assert replicate is not None  # workers start within a round (ArmSupervisor.begin)
        untimed = replicate == ACCURACY_PASS  # node 0's ranks alone
        return DistributedWorker(
            index,
            inbox,
            self.config.nproc,
            self._threads(index) or 1,  # resolved here in __init__: never None off --host
            extra_env=env,
            nodes=None if untimed else self._nodes,
            replicate=replicate,
        )

    def _start(self, arm: ArmState, cache: str, pooled: bool) -> None:
        assert self._caches is not None
        spec = arm.spec
        self._publish(
            {
                "type": "arm_start",
                "arm": arm.index,
                "name": spec.name,
                "backend": spec.backend,
                "replicate": self._workers.replicate,
                "cache": self._caches.effective(arm.index, spec, cache),
            }
        )
        # pre-started workers are single, local and of this interpreter
        pooled = pooled and not self._distributed(arm.index) and not self.config.host
        pooled = pooled and spec.python is None
        self._workers.start(arm, debug_env(self.config, arm.index), pooled)

    def _threads(self, index: int) -> int | None:
        """torch.set_num_threads in each of the arm's processes (its ranks share the run's
        threads); None on --host without --threads: that host's agent resolves its cores."""
        if self.config.threads is None:
            return None
        ranks = self.config.nproc if self._distributed(index) else 1
        return threads_per_process(self.config.threads, ranks)

    def _load_command(self, arm: ArmState, cache: str, seed: int) -> dict[str, Any]:
        """The worker builds its model and batches from `seed` (the round's, or the run's for
        the accuracy pass), given as the config's seed so every kind of worker reads it."""
        assert self._caches is not None
        return {
            "cmd": "load",
            "config": {**self.config.to_dict(), "seed": seed},
            "arm_index": arm.index,
            "threads": self._threads(arm.index),
            **self._caches.load_fields(arm.index, arm.spec, cache),
        }

    # -- events -------------------------------------------------------------------------------
    def _publish(self, event: dict[str, Any]) -> None:
        event.setdefault("t", round(self._clock() - self._t0, 4))
        self.session.apply(event)
        for listener in self.listeners:
            listener(event)
