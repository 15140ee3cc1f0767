"""Data in, benchmark-neutral: conversations and questions (`conversation`), samples
(`sample`), the user cache of fetched files. Each benchmark's own files are in its package
(`benchmarks/<name>/`)."""
