"""Published tables reproduced: `locoscore reproduce mem0-table`, the Mem0 paper's LoCoMo J
table measured here under its settings.

A layer above `run`, `judge` and the benchmarks (it drives a run and a judge pass per row):
`plan` says which rows run (and with what) and which cannot (and why), `table` writes the
measured rows beside the published ones from judged folders, `command` runs, judges and
writes them (or, in a dry run, returns each row's calls and cost).
"""
