"""LoCoMo's report pieces."""
