"""LoCoMo's files: the prediction formats of its harnesses, the probes and the
join of predictions to the dataset."""
