"""A results folder: its file names (`layout`), reading and merging it (`folder`), and the
guard that keeps one input's results in it (`identity`). The bottom of the import graph: it
imports nothing of locoscore but `errors` and `_io`."""
