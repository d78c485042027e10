"""The lake's table names and its default location, importable without pyarrow or DuckDB.

The command line reads both while its commands are declared (``--lake``'s default, the ``schema`` command's help),
before it knows which command runs: kept here, ``rebelote --help`` starts without importing pyarrow.
:mod:`pipeline.storage.schema` and :mod:`pipeline.storage.lake` re-export them (``schema.TABLES``, ``lake.DEFAULT_LAKE``).
"""

from __future__ import annotations

import os

#: Every table of the lake, the lake's own first, then the derived ones (schemas/<table>.toml each).
TABLES = ("hands", "games", "rejects", "scores", "game_scores", "player_hands", "player_games", "hand_facts",
          "pair_hands", "pair_games", "declaration_items", "dealt_events", "dd_hands")

#: Tables the ingest keeps for itself (which file holds which hand): documented and compacted, never reported.
BOOKKEEPING = ("holdings",)

#: Every table with a schema (schemas/<table>.toml).
ALL_TABLES = TABLES + BOOKKEEPING

#: The lake of commands given no --lake: $REBELOTE_LAKE, or ./rebelote-lake when it is unset or empty.
DEFAULT_LAKE = os.environ.get("REBELOTE_LAKE") or "rebelote-lake"
