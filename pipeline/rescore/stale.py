"""Which games of a scored ruleset need scoring again, so that ``ingest`` (and a report that finds new hands)
rescores only those instead of the whole lake.

Every table a rescore writes is game-local: a hand's score, the game pass, the per-player and per-pair rows of a
game, the summary points (carried within one game) depend on that game's hands and games row only. So rescoring
a set of whole games and putting their rows in place of the old ones gives exactly the rows a full rescore gives
(``tests/test_rescore_update.py`` checks it table by table).

A game needs it when the lake's hands and games and the ruleset's stored rows disagree, found by anti-joins on
the keys the rows carry: a hand with no score row (imported since), a score row whose hand is gone (replaced by
a richer copy, its file re-imported), a game with hands and no ``game_scores`` row or the reverse, a
``game_scores`` row computed from another version of its game (its ``game_key``: an edited target, a hand
changed), or before its game had a ``games`` row (no key). Ingest never touches these tables; stale rows stay until an update replaces them, and a report that
reads a stale ruleset as it stands leaves the stale games out (:func:`pipeline.stats.views.create_views`).

An update is only valid while the rules are those the stored rows were computed with (:func:`updatable`); any
change of a parameter, of the ruleset chosen for a game already scored under ``own``, or of the scoring engine
(:mod:`pipeline.engine_version`), needs the full rescore.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import orjson
import pyarrow as pa

from pipeline import engine_version
from pipeline.storage import lake as lakemod
from pipeline.rules import Ruleset
from pipeline.rules.own import OwnRules

#: Past this share of the lake's hands an update costs about what the full rescore does: rescore everything.
MAX_SHARE = 0.5


@dataclass(frozen=True)
class Stale:
    """The games to score again (``game_ids``, string array), how many hands they have now (``hands``), and the
    hand keys whose rows go (``hand_keys``: the hands of those games, now or at the last rescore)."""

    game_ids: pa.Array
    hands: int
    hand_keys: set


def record(lake, name: str) -> dict | None:
    """The ``_ruleset.json`` a rescore of ``name`` wrote, or None (never rescored, unreadable)."""
    raw = lakemod.read_bytes(lake, f"scores/ruleset={name}/_ruleset.json")
    try:
        rec = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        return None
    return rec if isinstance(rec, dict) else None


def updatable(lake, rules: Ruleset | OwnRules) -> bool:
    """True when the stored scores of ``rules.name`` were computed with the parameters ``rules`` has now, and its
    derived tables are stored, so the games already scored keep their rows. Under ``own``: every choice the stored record made is unchanged (a
    new source adds choices, which only its new games use) and every ruleset it used has the same parameters."""
    rec = record(lake, rules.name)
    if rec is None or rec.get("hands_files") is None or not isinstance(rec.get("params"), dict):
        return False
    if engine_version.recorded(rec) != engine_version.ENGINE:
        return False       # computed by another engine: every game is scored again
    from pipeline.facts.derived import STORED
    if any(f"ruleset={rules.name}" not in lakemod.partitions(lake, t) for t in STORED):
        # a derived table without this ruleset's partition (dropped by `migrate`, or `rescore --no-derived`): an
        # update would write the touched games' rows alone there, and the views would read that as the whole
        return False
    stored = rec["params"]
    now = json.loads(json.dumps(rules.params, ensure_ascii=False, sort_keys=True))
    if not isinstance(rules, OwnRules):
        return stored == now
    was, chosen = stored.get("choice") or {}, now.get("choice") or {}
    if any(k in chosen and chosen[k] != v for k, v in was.items()):
        return False
    return all(stored[m] == now[m] for m in stored if m != "choice" and m in now)


def stale(lake, name: str) -> Stale:
    """The games of the lake whose rows under ruleset ``name`` are missing or out of date (module text).
    Raises duckdb.Error / OSError on a read failure."""
    from pipeline.storage.duck import duckdb_connection, empty_sql, table_source

    loc = lakemod.locate(lake)
    con = duckdb_connection()
    try:
        def source(table: str, cols: str) -> str:
            files = [f.path for f in lakemod.list_files(loc, table, f"ruleset={name}" if table not in ("hands", "games") else None)]
            return (f"(SELECT {cols} FROM {table_source(con, loc, table, files)})" if files
                    else f"(SELECT {cols} FROM ({empty_sql(con, table)}))")

        con.execute(f"CREATE TEMP VIEW h AS {source('hands', 'hand_key, game_id')}")
        con.execute(f"CREATE TEMP VIEW s AS {source('scores', 'hand_key, game_id')}")
        con.execute(f"CREATE TEMP VIEW g AS {source('game_scores', 'game_id, game_key')}")
        con.execute(f"CREATE TEMP VIEW k AS {source('games', 'game_id, game_key')}")
        con.execute("""CREATE TEMP TABLE t AS
            SELECT game_id FROM h ANTI JOIN s USING (hand_key)
            UNION SELECT game_id FROM s ANTI JOIN h USING (hand_key)
            UNION SELECT game_id FROM h ANTI JOIN g USING (game_id)
            UNION SELECT game_id FROM g ANTI JOIN h USING (game_id)
            -- computed from another version of the game (another key), or before the game had a games row (no key:
            -- a null key matches no key, so the anti-join keeps it)
            UNION SELECT game_id FROM (SELECT * FROM g SEMI JOIN k USING (game_id)) AS gk
                  ANTI JOIN k USING (game_id, game_key)""")
        games = con.sql("SELECT game_id FROM t ORDER BY game_id").to_arrow_table().column(0).combine_chunks()
        hands = con.execute("SELECT count(*) FROM h SEMI JOIN t USING (game_id)").fetchall()[0][0]
        keys = con.sql("SELECT hand_key FROM h SEMI JOIN t USING (game_id) "
                           "UNION SELECT hand_key FROM s SEMI JOIN t USING (game_id)").to_arrow_table().column(0)
        return Stale(games.cast(pa.string()), int(hands), set(keys.to_pylist()))
    finally:
        con.close()
