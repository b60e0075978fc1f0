"""The setup panel's values, typed: what each of its parts holds, read once into its own record,
and the two things made of them: the engine's `RunConfig` for Run, and the saved setup's JSON
(the preferences), which `SavedSetup.of` reads back.

Every field is passed to RunConfig by name, so mypy checks each against RunConfig's type; only
the carried settings (carried_settings.py) stay the saved JSON they came as, for RunConfig to
check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from tcprof.app.setup.carried_settings import run_default
from tcprof.app.setup.core_options import CoreFields
from tcprof.app.setup.distributed_options import DEFAULTS, DistributedFields
from tcprof.app.setup.loop_options import LoopFields
from tcprof.app.setup.measurement_options import MeasurementFields
from tcprof.app.setup.model_extras import ExtrasFields
from tcprof.app.setup.saved_setup import RUN_FIELDS
from tcprof.profiler.analysis import stopping
from tcprof.profiler.config import DEFAULT_REPLICATES, ModelSource, RunConfig, ScriptSource

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


def at_defaults(record: R, names: Collection[str]) -> R:
    """The record with the fields `names` lists at RunConfig's defaults: what a script's run
    takes for the fields it cannot (script_mode.py)."""
    reset = {
        f.name: run_default(RUN_FIELDS[f.name])
        for f in dataclasses.fields(record)
        if f.name in names
    }
    return dataclasses.replace(record, **reset)


@dataclass(frozen=True)
class SetupValues:
    """The panel's fields as they are, each part's record; `carried`: RunConfig's keyword
    arguments the panel has no field for, as saved."""

    core: CoreFields
    measurement: MeasurementFields
    loop: LoopFields
    extras: ExtrasFields
    host: str | None
    distributed: DistributedFields
    carried: dict[str, Any]

    def for_script(self, disabled: Collection[str]) -> SetupValues:
        """These values with the fields a script cannot take at RunConfig's defaults."""
        return dataclasses.replace(
            self,
            core=at_defaults(self.core, disabled),
            measurement=at_defaults(self.measurement, disabled),
            loop=at_defaults(self.loop, disabled),
            extras=at_defaults(self.extras, disabled),
            host=None if "host" in disabled else self.host,
            distributed=at_defaults(self.distributed, disabled),
        )

    def config(
        self,
        source: ModelSource,
        batch_sizes: tuple[int, ...],
        script: ScriptSource | None = None,
        auto: bool = False,
    ) -> RunConfig:
        """The RunConfig for Run. `auto` (Replicates at auto) stops when the answer is settled,
        at most at the last look for the arms chosen, controls included (as `tcprof run`
        without --replicates does: analysis/stopping.py); with a number of rounds the Budget is
        unused."""
        core, measured, loop, extras, group = (
            self.core,
            self.measurement,
            self.loop,
            self.extras,
            self.distributed,
        )
        rounds = measured.replicates
        config = RunConfig(
            source=source,
            arms=core.arms,
            batch_sizes=batch_sizes,
            warmup=core.warmup,
            steps=core.steps,
            optimizer=core.optimizer,
            lr=core.lr,
            seed=core.seed,
            device=core.device or "cpu",  # an empty device is the CPU
            debug=core.debug,
            save_weights=core.save_weights,
            profile_steps=core.profile_steps,
            replicates=DEFAULT_REPLICATES if auto or rounds is None else rounds,
            stop_early=measured.stop_early,
            budget_s=measured.budget_s if auto else None,
            control=measured.control,
            threads=measured.threads,
            warm_cache=measured.warm_cache,
            portable_round=measured.portable_round,
            accuracy=measured.accuracy,
            stall_timeout_s=measured.stall_timeout_s,
            apply_advice=measured.apply_advice,
            loop=loop.loop,
            amp=loop.amp,
            channels_last=loop.channels_last,
            compile_optimizer=loop.compile_optimizer,
            weights=extras.weights,
            block_module=extras.block_module,
            host=self.host,
            nproc=group.nproc,
            parallel=group.parallel,
            nnodes=group.nnodes,
            node_rank=group.node_rank,
            rdzv_endpoint=group.rdzv_endpoint,
            rdzv_timeout_s=group.rdzv_timeout_s,
            script=script,
            **self.carried,
        )
        if not auto:
            return config
        return dataclasses.replace(config, replicates=stopping.looks(len(config.run_arms))[-1])

    def to_json(self) -> dict[str, Any]:
        """As the saved setup keeps it: the core fields (batch sizes as typed), the other
        boxes', the Distributed group's that differ from the defaults, the carried ones."""
        defaults = dataclasses.asdict(DEFAULTS)
        group = dataclasses.asdict(self.distributed)
        return {
            **self.core.to_json(),
            **dataclasses.asdict(self.measurement),
            **dataclasses.asdict(self.loop),
            **dataclasses.asdict(self.extras),
            "host": self.host,
            **{key: value for key, value in group.items() if value != defaults[key]},
            **self.carried,
        }
