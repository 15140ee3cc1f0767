"""Every file name of a results folder (`--out DIR`), in one place.

A folder is shared by the commands (`run`, `score`, `judge`, `audit`, `report`); each writes
its own files and reads the others'. The names below are the contract between them, and the
folder guard (`results.identity`) drops exactly the files that belong to an input.
"""

from __future__ import annotations

# What every command wrote into the folder and read to write it, by sha256 (`manifest`).
MANIFEST = "manifest.json"
# The scores and their summary: one row per question; sections per command.
SUMMARY = "summary.json"
SCORES = "scores.jsonl"
# The judge's verdicts (every run of every question) and its resumable cache.
JUDGMENTS = "judgments.jsonl"
JUDGE_CACHE = "judge_cache.sqlite"
# A run: its answers, its document, its resumable state and the memory system's stores.
PREDICTIONS = "predictions.jsonl"
RUN_JSON = "run.json"
RUN_STATE = "run_state.sqlite"
SYSTEM_STATE = "system_state"  # a folder
# The official evaluator's input a run writes beside its predictions, for benchmarks whose
# evaluator reads `{question_id, hypothesis}` lines.
HYPOTHESES = "hypotheses.jsonl"
# The report `report` (and every writing command) rebuilds from the folder.
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
SCORES_CSV = "scores.csv"
REPORT_FILES = (REPORT_MD, REPORT_HTML, SCORES_CSV)
# The judge audit.
AUDIT_JSON = "audit.json"
AUDIT_MD = "audit.md"
AUDIT_HTML = "audit.html"
AUDIT_FILES = (AUDIT_JSON, AUDIT_MD, AUDIT_HTML)

# The files a run writes about its predictions (dropped with the run).
RUN_FILES = (PREDICTIONS, RUN_JSON, HYPOTHESES)
# The files of an input's results: scores, verdicts, reports, audit (not the caches).
RESULT_FILES = (SCORES, SUMMARY, *REPORT_FILES, JUDGMENTS, *AUDIT_FILES)

# The folders of `compare` and `board` (outputs of their own, not results folders).
COMPARE_MD = "compare.md"
COMPARE_HTML = "compare.html"
COMPARE_JSON = "compare.json"
DIFFERENCES_CSV = "differences.csv"
BOARD_MD = "board.md"
BOARD_HTML = "board.html"
BOARD_JSON = "board.json"
BOARD_FILES = (BOARD_MD, BOARD_HTML, BOARD_JSON)
# a judge panel's folder: one judge folder each under judges/<name>/, and the panel's account
PANEL_JUDGES = "judges"
PANEL_JSON = "panel.json"
PANEL_MD = "panel.md"
