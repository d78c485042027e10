"""Per-hand facts under a ruleset: the ``hand_facts`` table (schemas/hand_facts.toml).

The ``contracts``, ``declarations``, ``declaration_kinds`` and ``compare`` reports need a hand's contract (from
``hands``: taker, strain, bid, capot bid, coinche) beside its result under a ruleset (from ``scores``). Joining
the two tables on their string key ``hand_key`` costs seconds over millions of hands; written once when the
ruleset is rescored (:func:`pipeline.facts.derived.materialize`), the reports read one narrow table. A lake rescored
before this table existed, or a hand-made one, gets the same rows computed on the fly (:func:`live_sql`).

One row per hand of ``hands`` and ruleset, whether or not the hand has a score under it (the score columns are
then null, and the declaration points 0): the contracts report counts unscored contracts.
"""

from __future__ import annotations


def live_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None,
             hand_seq: str = "NULL") -> str:
    """SELECT producing ``hand_facts`` rows from relations ``hands`` and ``scores`` (the lake's columns), for
    every ruleset of ``scores`` or those listed by the SELECT ``rulesets`` (one column, ``ruleset``).

    ``hand_seq``: SQL for the ``hand_seq`` column (BIGINT), an expression over ``h`` (the hands relation); the
    default NULL is what rows computed on the fly carry. :func:`pipeline.facts.derived.materialize` passes the hand's
    position in the hand files it reads (see schemas/hand_facts.toml)."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    dp = "sc.declaration_points"
    return f"""
SELECT r.ruleset, h.hand_key, h.game_id, h.hand_no, h.source, h.n_players, h.taker, h.strain, h.bid, h.capot_bid, h.coinche,
       h.announced IS NOT NULL                                                          AS records_announced,
       sc.status, sc.contract_made, sc.litige, sc.legal, sc.taker_team, sc.capot_team, sc.belote_team,
       -- bit t: team t has belote points (list_transform's second lambda argument is the 1-based index)
       (CASE WHEN sc.belote_points IS NOT NULL
             THEN coalesce(list_sum(list_transform(sc.belote_points,
                                                   lambda p, i: CASE WHEN p > 0 THEN 1 << (i - 1) ELSE 0 END)), 0)
        END)::TINYINT                                                                    AS belote_teams,
       sc.contract_points[sc.taker_team + 1]                                            AS taker_contract_points,
       CASE WHEN len(sc.contract_points) = 2 THEN sc.contract_points[2 - sc.taker_team] END AS defence_contract_points,
       coalesce(list_sum({dp}), 0)::SMALLINT                                             AS decl_points,
       (CASE WHEN len({dp}) = 2 THEN {dp}[1] ELSE 0 END)::SMALLINT                      AS decl_points_team0,
       (CASE WHEN len({dp}) = 2 THEN {dp}[2] ELSE 0 END)::SMALLINT                      AS decl_points_team1,
       coalesce({dp}[sc.taker_team + 1], 0)::SMALLINT                                   AS decl_points_taker,
       sc.declarations_decided, sc.declarations_from, sc.hand_score,
       ({hand_seq})::BIGINT AS hand_seq, h.players
FROM ({rs}) AS r
CROSS JOIN {hands} AS h
LEFT JOIN {scores} AS sc ON sc.hand_key = h.hand_key AND sc.ruleset = r.ruleset
"""
