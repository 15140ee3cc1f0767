"""The harness: drive a memory system through a benchmark and measure every cost."""
