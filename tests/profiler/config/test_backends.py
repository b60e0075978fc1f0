"""torch.compile's backends grouped for the arm dialog, each with what it is for."""

from __future__ import annotations

from tcprof.profiler.config.backends import (
    DEBUG,
    OTHER,
    RECOMMENDED,
    TESTING,
    describe_backend,
    group_backends,
)

# torch 2.13's list_backends(exclude_tags=()), and a name no table knows
LISTED = [
    "aot_eager",
    "aot_eager_decomp_partition",
    "aot_eager_decomp_partition_crossref",
    "cudagraphs",
    "dynamo_accuracy_minifier_backend",
    "dynamo_minifier_backend",
    "eager",
    "inductor",
    "relu_compile_error_TESTING_ONLY",
    "tvm",
    "someones_plugin",
]


def test_backends_fall_into_recommended_debug_other_and_testing():
    grouped = {group: [b.name for b in members] for group, members in group_backends(LISTED)}
    assert list(grouped) == [RECOMMENDED, DEBUG, OTHER, TESTING]
    assert grouped[RECOMMENDED] == ["inductor"]
    assert grouped[DEBUG] == ["eager", "aot_eager", "aot_eager_decomp_partition"]
    assert grouped[OTHER] == ["cudagraphs", "tvm", "someones_plugin"]
    assert set(grouped[TESTING]) == {
        "aot_eager_decomp_partition_crossref",
        "dynamo_accuracy_minifier_backend",
        "dynamo_minifier_backend",
        "relu_compile_error_TESTING_ONLY",
    }


def test_each_known_backend_has_one_line_and_an_unknown_one_none():
    for name in LISTED[:-1]:
        description = describe_backend(name).description
        assert description and "\n" not in description, name
    assert describe_backend("someones_plugin").description == ""
    assert describe_backend("new_fault_TESTING_ONLY").group == TESTING  # by its name
    assert group_backends([]) == []
