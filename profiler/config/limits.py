"""The bounds a run's numbers must keep (`--steps` at least 1, `--warmup` not negative, ...),
declared once as data: `validate` (model.py) refuses a RunConfig outside them, the run's
options (recording/declared.py) name the one each option is held to, and the window's fields
take their lowest value from them, so every door refuses a bad number with the same line."""

from __future__ import annotations

from dataclasses import dataclass

from tcprof.profiler.config.choices import ConfigError


@dataclass(frozen=True)
class Limit:
    """The lowest value of a RunConfig field: `low` itself allowed unless `strict`; `whole`:
    an integer (not a bool); `optional`: None passes (the default is chosen elsewhere)."""

    field: str
    low: float
    message: str
    strict: bool = False
    whole: bool = False
    optional: bool = False

    def problem(self, value: object) -> str | None:
        """The one line that refuses `value`, None when it is within the bound."""
        if value is None:
            return None if self.optional else self.message
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return self.message
        if self.whole and not isinstance(value, int):
            return self.message
        within = value > self.low if self.strict else value >= self.low  # NaN is neither
        return None if within else self.message


LIMITS = (
    Limit("steps", 1, "--steps must be at least 1", whole=True),
    Limit("warmup", 0, "--warmup cannot be negative", whole=True),
    Limit("blocks", 1, "--blocks must be at least 1", whole=True),
    Limit("replicates", 1, "--replicates must be at least 1", whole=True),
    Limit("precision", 0, "--precision must be a positive fraction (0.03: ±3%)", strict=True),
    Limit(
        "budget_s", 0, "--budget must be a positive number of seconds", strict=True, optional=True
    ),
    Limit("threads", 1, "--threads must be a positive integer", whole=True, optional=True),
    Limit(
        "stall_timeout_s", 0, "--stall-timeout cannot be negative (0 turns it off)", optional=True
    ),
    Limit("min_block_ms", 0, "the minimum block duration cannot be negative"),
    Limit("accuracy_rtol", 0, "--rtol must be a non-negative number", optional=True),
    Limit("accuracy_atol", 0, "--atol must be a non-negative number", optional=True),
    Limit("lr", 0, "the learning rate must be positive", strict=True),
    Limit("profile_steps", 0, "--profile-steps cannot be negative", whole=True),
    Limit("nproc", 1, "--nproc must be a positive integer", whole=True),
    Limit("nnodes", 1, "--nnodes must be a positive integer", whole=True),
    Limit("rdzv_timeout_s", 0, "--rdzv-timeout must be a positive number of seconds", strict=True),
)
LIMIT_OF = {limit.field: limit for limit in LIMITS}


def check_limits(values: object) -> None:
    """ConfigError with the first bound that `values` (a RunConfig: the fields as attributes)
    breaks."""
    for limit in LIMITS:
        problem = limit.problem(getattr(values, limit.field))
        if problem:
            raise ConfigError(problem)
