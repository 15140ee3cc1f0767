"""Memory systems under evaluation: the interface (`base`) and the built-in adapters."""
