"""A results folder: its file names (`layout`), reading and merging it (`folder`), the guard
that keeps one input's results in it (`identity`), the checked lines of an answers file
(`answers_file`) and a folder's row as the board shows it (`board_row`). The bottom of the
import graph: it imports nothing of locoscore but `errors` and `_io`."""
