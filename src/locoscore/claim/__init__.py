"""The claim card: what a results folder's number can be believed for, and the gates a
careful reviewer of a benchmark claim would check before believing it.

`card.build_card` reads a folder (summary.json, run.json, predictions.jsonl, scores.jsonl,
judgments.jsonl, audit.json) and asks its Benchmark object for anything benchmark-specific
(the headline per question, the question total of its data file, its errata ceiling); it
never names a benchmark. `gates.evaluate` turns a card into pass/fail gates and warnings;
`render` makes the card's lines (terminal, report box, `compare`). `refresh.write_claim`
records the card as summary.json's `claim` section. Every field is documented in
docs/reference/claim-card.md.
"""
