"""A judge panel: several judges over the same answers, each kept apart (`judge --panel`).

`file` reads PANEL.toml, `variants` holds the built-in prompt variants, `questions` reads a
judged folder's per-question scores, `summary` and `report` say what the panel found,
`agreement` holds the statistics (kappa, alpha, tau), `losses` why each question was lost.
"""
