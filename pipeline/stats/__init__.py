"""Stats: what the reports read and compute over the lake.

What a report selects (``report_filters``), the DuckDB views over the lake (``views``), the reports of
``queries/`` (``reports``), player and partnership ratings (``ratings``), deal fairness (``fairness``), salted
pseudonyms (``pseudonymize``), which ruleset a report reads (``scored_with``, ``report_rules``), one hand
explained (``show``) and the double-dummy analysis (``analyse``).
"""
