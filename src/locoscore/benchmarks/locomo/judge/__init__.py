"""LoCoMo's judge audit: probe sets from the gold, the probe files and your answers."""
