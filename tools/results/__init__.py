"""The sections of docs/results.md and the per-run metric CSVs, for tools/results_page.py."""
