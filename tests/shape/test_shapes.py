"""The suite covers the registry: a benchmark added to it is proved here too."""

from __future__ import annotations

from shapes import SHAPES, TINY, VARIANTS

from locoscore.benchmarks import BENCHMARKS, get_benchmark


def test_every_registered_benchmark_is_a_shape_or_a_declared_variant() -> None:
    assert set(BENCHMARKS) <= {*SHAPES, *VARIANTS}
    assert {"locomo", "longmemeval", "beam", TINY} <= set(SHAPES)
    for variant, shape in VARIANTS.items():  # the same class, so the same code paths
        assert type(BENCHMARKS[variant]) is type(BENCHMARKS[shape])


def test_the_example_loads_by_its_spec_from_the_examples_folder() -> None:
    tiny = get_benchmark(TINY)
    assert (tiny.name, tiny.source) == ("tiny", TINY)
    assert tiny.name not in BENCHMARKS  # a plugin, not a line of src/
