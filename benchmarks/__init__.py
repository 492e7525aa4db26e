"""The repository's benchmark scripts: each measures one thing, saves
``results/<name>_<device>.json`` and re-renders BENCHMARKS.md (``report.py`` renders its section
into ``sections/measured.md``, which ``wordle-gym bench`` appends to the agents table). Run them as
modules from the repository root: ``python -m benchmarks.env_throughput``,
``python -m benchmarks.run`` (the agents table), ``python -m benchmarks.make_table`` (re-render
only)."""
