"""Storage: the lake and nothing above it.

Arrow schemas from ``schemas/*.toml`` (``schema``), the partitioned Parquet lake on any filesystem
(``lake``: where it is, its lock, layout version, reading; ``lake_write``: every write of a transaction),
the commit record that makes a write all-or-nothing (``commits``), and DuckDB connections over the lake
(``duck``). Nothing here imports ingest, rules, facts, rescore or reports.
"""
