"""`locoscore compare`: paired differences between results folders (`paired`), and the
documents that show them (`report`). It reads folders as `locoscore.report` loads them."""
