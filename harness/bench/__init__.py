"""Stand-alone benchmarks of single pipeline parts against the fixture sites (`python -m
harness.bench.NAME`); their figures go into the README."""
