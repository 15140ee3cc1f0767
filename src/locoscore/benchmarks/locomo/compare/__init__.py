"""LoCoMo's comparison of results folders: paired differences and tests."""
