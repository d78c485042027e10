"""Ingest: source files into the lake, whatever their format (the readers are :mod:`pipeline.formats`).

Walking and opening the files and recording each in the manifest (``input_files``), the driver and its error
policy (``run``), the columnar reader of native files (``fast_native`` with ``native_blocks``, ``native_pool``,
``native_columns``, ``native_fields``, ``arrow_lists``), deduplication against the lake (``key_index``,
``game_copies``, ``deal_copies``, ``copy_checks``), replaced files (``file_replace``, ``holdings``,
``takeover``), the writer (``writer``) and what a run did (``summary``).
"""
