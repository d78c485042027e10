"""The fairness events of each seat's dealt hand: the ``dealt_events`` table (schemas/dealt_events.toml).

``rebelote stats fairness`` (:mod:`pipeline.stats.fairness`) counts, per source or per player, the seat hands showing
each event of :func:`pipeline.stats.fairness.exact_probabilities`. The events depend only on the dealt cards (and, for
the trump events, on the contract's strain), never on a ruleset. The table is not stored (layout version 7): the
report counts the deals itself, and this SQL is the view dashboards read (:func:`pipeline.stats.views.create_views`).

One row per seat of every *valid* 4-player deal (``n_players`` = 4, four 8-card ``initial_hands`` that partition
the 32-card deck: the deals :func:`pipeline.stats.fairness.fairness_table` counts; other hands have no rows):

* ``events``: a bit set, bit i set when the hand shows event :data:`EVENT_BITS` [i] (the carrés, the runs, the
  void, and the J and 9 of trump). ``carre_any`` is ``events & CARRE_MASK != 0``.
* ``trump_len``: the number of trump cards held when the strain is a suit (C D H S), else NULL (the hand is then
  no trial of the trump events).
* ``players``: the deal's ``hands.players``, on each of its four rows.

The rows are the same under every ruleset; the view repeats them for each ruleset scored, like the other derived
tables.
"""

from __future__ import annotations

from pipeline.cards import RANKS, rank_index

#: Event of each bit of ``events``, bit 0 first (pipeline.stats.fairness event names).
EVENT_BITS = ("carre_J", "carre_9", "carre_A", "carre_10", "carre_K", "carre_Q", "run_3", "run_4", "run_5", "void",
              "trump_J9")
#: The carré bits of ``events``.
CARRE_MASK = (1 << 6) - 1
_SUITS = ("C", "D", "H", "S")        # suit index = card // 8 (pipeline.stats.fairness._SUIT_INDEX)


def _events_sql(m: str, trump_byte: str) -> str:
    """SQL (SMALLINT) of the ``events`` bit set of the hand whose card mask (UBIGINT) is ``m``."""
    byte = [f"(({m} >> {8 * s}) & 255)" for s in range(4)]
    every = " & ".join(byte)                                     # ranks held in every suit: the carrés
    terms = []
    for bit, name in enumerate(EVENT_BITS):
        kind, _, arg = name.partition("_")
        if kind == "carre":
            cond = f"(({every}) >> {rank_index(arg)}) & 1 = 1"
        elif kind == "run":              # L consecutive ranks in one suit: x & x>>1 & ... & x>>(L-1) != 0
            cond = " OR ".join("(" + " & ".join(f"({b} >> {k})" for k in range(int(arg))) + ") != 0" for b in byte)
        elif kind == "void":
            cond = " OR ".join(f"{b} = 0" for b in byte)
        else:                            # trump_J9: the J and the 9 of the trump suit
            pm = (1 << RANKS.index("J")) | (1 << RANKS.index("9"))
            cond = f"coalesce(({trump_byte}) & {pm} = {pm}, false)"
        terms.append(f"CASE WHEN {cond} THEN {1 << bit} ELSE 0 END")
    return "(" + " + ".join(terms) + ")::SMALLINT"


def live_sql(hands: str = "hands", scores: str = "scores", rulesets: str | None = None) -> str:
    """SELECT producing ``dealt_events`` rows (schema column order) from relation ``hands``, for every ruleset
    of ``scores`` (or those listed by the SELECT ``rulesets``)."""
    rs = rulesets or f"SELECT DISTINCT ruleset FROM {scores}"
    m = "d.mask"
    suit = "CASE strain " + " ".join(f"WHEN '{s}' THEN {i}" for i, s in enumerate(_SUITS)) + " END"
    trump_byte = f"(({m} >> (8 * d.trump)) & 255)"
    return f"""
SELECT r.ruleset, d.hand_key, d.source, d.seat, d.player, d.players,
       {_events_sql(m, trump_byte)} AS events,
       bit_count({trump_byte})::TINYINT AS trump_len
FROM ({rs}) AS r
CROSS JOIN (
    SELECT hand_key, source, {suit} AS trump, seat::TINYINT AS seat,
           CASE WHEN len(players) = 4 THEN players[seat + 1] END AS player, players, initial_hands[seat + 1]::UBIGINT AS mask
    FROM (SELECT *, unnest(range(4)) AS seat FROM {hands}
          WHERE n_players = 4 AND len(initial_hands) = 4
            AND list_bool_and(list_transform(initial_hands, lambda x: bit_count(x) = 8))
            AND list_reduce(initial_hands, lambda a, b: a | b) = 4294967295)
) AS d
"""
