"""Report renderers, benchmark-neutral: documents of blocks (`document`) written as markdown,
self-contained HTML with SVG charts (`html`, `charts`), CSV; spend and terminal lines. Each
benchmark's report is in its package under `benchmarks/`."""
