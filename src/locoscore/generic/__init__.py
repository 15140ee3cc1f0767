"""The machinery a benchmark gets from the small parts it declares (`parts`: a metric and
judge rules; `data`: its conversations and questions as plain values): scores of a run, the
judge pass, the report, the board row and the comparison. Nothing here names a benchmark;
`benchmarks.base.Benchmark`'s default hooks call it."""
