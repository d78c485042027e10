"""Outputs of the reports: files (``output``, ``export``), the dashboard database (``dashboard``) and the
offline HTML report (``html_report`` with its charts ``report_charts``, binned data ``report_data``,
interactive tables ``html_tables`` and player pages ``player_pages``)."""
