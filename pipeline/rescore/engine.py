"""The rescoring entry point: a pure function from a batch of hands to a batch of scores.

``score_batch(hands, rules)`` takes rows of the ``hands`` table (a pyarrow Table or RecordBatch) and
returns a pyarrow Table with the ``scores`` schema (``schemas/scores.toml``). It is row-local: any split
of the input into batches gives the same rows, which is what lets it run unchanged on a distributed
engine (Ray ``map_batches``, Spark ``mapInArrow``). Game-level results are a second pass
(:mod:`pipeline.rescore.game`).

Rows that cannot be scored get ``status = 'unscorable'`` and a ``reason``; nothing is guessed.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import schema
from pipeline.cards import ALL_TRUMP, NO_TRUMP, STRAINS
from pipeline.rescore import columns, contract, declarations, play, solo, tables
from pipeline.rescore.jit import njit
from pipeline.rules import Ruleset

_STRAIN_SET = pa.array(STRAINS)
_STATUS = ("passed_out", "scored", "unscorable")
CHUNK = 65_536


class _Reasons:
    """Why each row cannot be scored: a code per row (0 = none yet) into the texts given so far."""

    def __init__(self, n: int):
        self.code = np.zeros(n, dtype=np.int16)
        self.texts = [""]

    def set(self, mask: np.ndarray, text: str) -> None:
        """Give ``text`` as the reason of the rows in ``mask`` (bool (n,))."""
        self.texts.append(text)
        self.code[mask] = len(self.texts) - 1

    def column(self) -> pa.Array:
        """The ``reason`` column: each row's text, NULL where none was given."""
        return columns.strings(self.code, self.texts, self.code > 0)


class _Prepared:
    """Ruleset-derived tables, built once per ruleset."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.tables = tables.build(rules)
        self.play_rules = play.PlayRules.of(rules)
        self.decl_tables = declarations.build_tables(rules)


_CACHE: dict[int, _Prepared] = {}


#: scores.reason of a summary-level hand (points only, as on a score sheet): no cards, so nothing to rescore
SUMMARY_REASON = "summary hands carry no cards: nothing to rescore"

def _prepared(rules: Ruleset) -> _Prepared:
    key = id(rules)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _Prepared(rules)
    return _CACHE[key]


def _any_column(a: np.ndarray) -> np.ndarray:
    """Rows of a bool (n, k) array with any True: ``a.any(axis=1)``, column by column (several times faster
    for the few columns of a team table)."""
    out = a[:, 0].copy()
    for t in range(1, a.shape[1]):
        out |= a[:, t]
    return out


def _scale(cp: np.ndarray, strain: np.ndarray, R: Ruleset) -> np.ndarray:
    """Apply ``cards.no_trump_scale`` / ``cards.all_trump_scale`` (a / b, rounded to nearest) to team card points."""
    out = cp
    for strain_id, key in ((NO_TRUMP, "cards.no_trump_scale"), (ALL_TRUMP, "cards.all_trump_scale")):
        a, b = R[key]
        if a != b:
            scaled = (cp * a * 2 + b) // (2 * b)
            out = np.where((strain == strain_id)[:, None], scaled, out)
    return out


@njit(cache=True, nogil=True)
def _belote_led_only_kernel(plays, prow, init, sel, value, K, out, lost_suits):
    """For each hand sel[q] (its plays at row prow[q]): take ``value`` from the holder's team for each suit whose
    king and queen one seat holds and whose first-played card of the two neither leads nor follows suit."""
    P = init.shape[1]
    total = plays.shape[1]
    for q in range(len(sel)):
        i = sel[q]
        r = prow[q]
        for suit in range(4):
            queen, king = suit * 8 + 5, suit * 8 + 6
            kq = (np.int64(1) << queen) | (np.int64(1) << king)
            holder = -1
            for s in range(P):
                if np.int64(init[i, s]) & kq == kq:
                    holder = s
                    break
            if holder < 0:
                continue
            at_q = at_k = 0                       # position of each in the play (0 when not played)
            for j in range(total - 1, -1, -1):
                if plays[r, j] == queen:
                    at_q = j
                elif plays[r, j] == king:
                    at_k = j
            first = min(at_q, at_k)
            if first % P != 0 and plays[r, first - first % P] // 8 != suit:
                out[i, holder % K] -= value
                lost_suits[i, suit] = True


def _belote_led_only(bpts, hi, fi, plays, seats, init, strain, R, K=2):
    """All-trump belotes under ``belote.all_trump = "per_suit_led"``: a suit's belote counts only when its
    holder plays the first of the king and queen leading or following that suit (BG-HIT, BG-NIK). Full-play
    rows only; rows recorded without play order keep the held count. One compiled pass over the rows.
    Returns (belote points int64 (len(hi), K), lost bool (len(hi), 4): the suits whose belote did not count)."""
    out = np.array(bpts, dtype=np.int64)
    lost_suits = np.zeros((len(hi), 4), dtype=bool)
    k = np.searchsorted(fi, hi)                                   # position of each held row among full rows
    k = np.clip(k, 0, len(fi) - 1)
    sel = np.nonzero((fi[k] == hi) & (strain[hi] == ALL_TRUMP))[0]
    if len(sel):
        _belote_led_only_kernel(np.ascontiguousarray(plays, dtype=np.int8), k[sel].astype(np.int64),
                                np.ascontiguousarray(init, dtype=np.uint32), sel.astype(np.int64),
                                int(R["belote.value"]), K, out, lost_suits)
    return out, lost_suits


_ENTRY_TYPE = pa.struct([("seat", pa.int8()), ("kind", pa.string()), ("rank", pa.int8()), ("suit", pa.int8()),
                         ("length", pa.int8()), ("points", pa.int16()), ("scored", pa.bool_())])


def _entries_column(e: "declarations.Entries", n: int, valid: np.ndarray) -> pa.Array:
    """``scores.declarations``: each hand's items of ``e`` (rows sorted), NULL where ``valid`` is false."""
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(e.row, minlength=n), out=offsets[1:])
    items = pa.StructArray.from_arrays(
        [pa.array(e.seat, pa.int8()), columns.strings(e.kind, declarations.KINDS),
         pa.array(e.rank, pa.int8(), mask=e.rank < 0), pa.array(e.suit, pa.int8(), mask=e.suit < 0),
         pa.array(e.length, pa.int8()), pa.array(e.points, pa.int16()), pa.array(e.scored, pa.bool_())],
        fields=list(_ENTRY_TYPE))
    return pa.ListArray.from_arrays(pa.array(offsets), items, mask=pa.array(~valid))


def score_batch(hands: pa.Table | pa.RecordBatch, rules: Ruleset) -> pa.Table:
    """Rescore every hand of ``hands`` under ``rules``.

    Args:
        hands: rows with (at least) the ``hands`` columns hand_key, game_id, hand_no, source, n_players,
            dealer, completeness, initial_hands, taker, strain, bid, capot_bid, coinche, plays,
            play_seats, recorded_score.
        rules: a resolved ruleset.
    Returns:
        A pyarrow Table with the ``scores`` schema, one row per input row, in input order. Per-team lists
        (card_points, hand_score...) have ``rules.n_teams`` entries: 2 with 2 or 4 players (team = seat % 2),
        3 with 3 players (team = seat: each plays for himself).
    """
    if isinstance(hands, pa.RecordBatch):
        hands = pa.Table.from_batches([hands])
    if hands.num_rows > CHUNK:   # row-local: score slices that keep the intermediate arrays in cache (fastest here)
        return pa.concat_tables([score_batch(hands.slice(i, CHUNK), rules) for i in range(0, hands.num_rows, CHUNK)])
    # optional columns a caller may leave out are read as all-null
    hs = schema.schema("hands")
    for name in ("tricks_taken", "last_trick_seat", "announced", "recorded_score", "recorded_margin", "bid",
                 "carried_in", "taker_team"):
        if name not in hands.column_names:
            hands = hands.append_column(hs.field(name), pa.nulls(hands.num_rows, hs.field(name).type))
    n = hands.num_rows
    prep = _prepared(rules)
    R = rules
    n_tricks = int(R["deal.tricks"])
    n_players = int(R["deal.n_players"])
    K = R.n_teams

    taker_col = hands.column("taker")
    # the taker's team: taker % K, or hands.taker_team when the source names the team but not the seat
    team_only = hands.column("taker_team").is_valid().to_numpy(zero_copy_only=False) & \
        taker_col.is_null().to_numpy(zero_copy_only=False)
    team_of_taker = np.where(team_only, pc.fill_null(hands.column("taker_team"), 0).to_numpy(zero_copy_only=False),
                             pc.fill_null(taker_col, 0).to_numpy(zero_copy_only=False) % K).astype(np.int64)
    completeness = hands.column("completeness")
    deal_only = pc.fill_null(pc.equal(completeness, "deal"), False).to_numpy(zero_copy_only=False)
    passed = taker_col.is_null().to_numpy(zero_copy_only=False) & ~team_only & ~deal_only
    n_pl = hands.column("n_players").to_numpy(zero_copy_only=False)
    plays_len = pc.fill_null(pc.list_value_length(hands.column("plays")), 0).to_numpy(zero_copy_only=False)
    hands_len = pc.fill_null(pc.list_value_length(hands.column("initial_hands")), 0).to_numpy(zero_copy_only=False)

    strain_idx = pc.fill_null(pc.index_in(hands.column("strain"), value_set=_STRAIN_SET), -1).to_numpy(zero_copy_only=False)

    tt_len = pc.fill_null(pc.list_value_length(hands.column("tricks_taken")), 0).to_numpy(zero_copy_only=False)
    lts_ok = hands.column("last_trick_seat").is_valid().to_numpy(zero_copy_only=False)
    is_full = pc.fill_null(pc.equal(completeness, "full_play"), False).to_numpy(zero_copy_only=False)
    is_tt = pc.fill_null(pc.equal(completeness, "tricks_taken"), False).to_numpy(zero_copy_only=False)
    count = R["declarations.count"]
    has_ann = hands.column("announced").is_valid().to_numpy(zero_copy_only=False)
    # which rows take declarations (and belote) from the record's announcements, which from the hands held
    from_ann = np.full(n, count == "announced") | ((count == "announced_else_held") & has_ann)
    needs_hands = ~from_ann & (bool(R["declarations.enabled"]) or bool(R["belote.enabled"]))

    reasons = _Reasons(n)
    free = lambda: (reasons.code == 0) & ~passed  # noqa: E731
    reasons.set((n_pl != n_players), f"ruleset {R.name} is for {n_players} players")
    reasons.set(free() & deal_only, "deal level: the cards dealt only, no contract or play recorded")
    reasons.set(free() & ~is_full & ~is_tt, SUMMARY_REASON)
    reasons.set(free() & is_full & (plays_len != n_players * n_tricks), f"play record is not {n_players * n_tricks} cards")
    reasons.set(free() & is_full & (hands_len != n_players), "initial hands missing")
    reasons.set(free() & is_tt & ((tt_len != n_players) | ~lts_ok), "tricks taken or last trick missing")
    reasons.set(free() & is_tt & needs_hands & (hands_len != n_players),
                f"ruleset {R.name} counts declarations/belote held, which needs the initial hands")
    reasons.set(free() & (strain_idx < 0), "contract strain missing")
    if K != 2:   # 3 players: prise only (the ruleset loader checks the style); a record may still carry one
        coinche_col = hands.column("coinche").to_numpy(zero_copy_only=False)
        capot_col = hands.column("capot_bid").to_numpy(zero_copy_only=False)
        reasons.set(free() & ((coinche_col > 0) | capot_col),
                f"ruleset {R.name}: 3-player belote has no coinche and no capot bid")
    if int(R["deal.deck"]) == 24:   # the 7s and 8s are out of the pack
        low = np.uint32(0x03030303)
        init_or = np.zeros(n, dtype=np.uint32)
        cand = np.nonzero(free() & (hands_len == n_players))[0]
        if len(cand):
            init_or[cand] = np.bitwise_or.reduce(
                columns.fixed_list(hands.column("initial_hands"), cand, n_players, np.uint32), axis=1)
        reasons.set(free() & ((init_or & low) != 0), f"a 7 or an 8 is dealt, but ruleset {R.name} plays a 24-card pack")
    if R["contract.made_vs_bid"] == "ge" or R["contract.made_adds_bid"] or R["contract.fail_adds_bid"]:
        no_bid = (hands.column("bid").is_null().to_numpy(zero_copy_only=False)
                  & ~hands.column("capot_bid").to_numpy(zero_copy_only=False))
        reasons.set(free() & no_bid, f"contract has no bid value, which ruleset {R.name} needs")
    ok = free()
    idx = np.nonzero(ok)[0]
    m = len(idx)

    # per-row outputs, filled for scored rows
    legal = np.zeros(n, dtype=bool)
    has_play = np.zeros(n, dtype=bool)
    ill_trick = np.zeros(n, dtype=np.int8)
    ill_seat = np.full(n, -1, dtype=np.int8)
    ill_card = np.full(n, -1, dtype=np.int8)
    ill_rule = np.zeros(n, dtype=np.int8)
    winners = np.zeros((n, n_tricks), dtype=np.int8)
    card_pts = np.zeros((n, K), dtype=np.int32)
    last_team = np.zeros(n, dtype=np.int8)
    capot_team = np.full(n, -1, dtype=np.int8)
    decl_pts = np.zeros((n, K), dtype=np.int32)
    belote_team = np.full(n, -1, dtype=np.int8)
    belote_pts = np.zeros((n, K), dtype=np.int32)
    cpoints = np.zeros((n, K), dtype=np.int32)
    made = np.zeros(n, dtype=bool)
    litige = np.zeros(n, dtype=bool)
    score = np.zeros((n, K), dtype=np.int32)
    held = np.zeros(n, dtype=np.int32)
    taker_team = np.full(n, -1, dtype=np.int8)
    decl_rows = np.zeros(n, dtype=bool)     # hands where some team scored declaration points
    decided = np.zeros(n, dtype=bool)
    ent = declarations.Entries.empty()

    if m:
        strain = strain_idx[idx].astype(np.int8)
        T = team_of_taker[idx]
        bid = pc.fill_null(hands.column("bid"), 0).to_numpy(zero_copy_only=False)[idx].astype(np.int64)
        capot_bid = hands.column("capot_bid").to_numpy(zero_copy_only=False)[idx].astype(bool)
        coinche = hands.column("coinche").to_numpy(zero_copy_only=False)[idx].astype(np.int64)
        cp = np.zeros((m, K), dtype=np.int64)
        lt = np.zeros(m, dtype=np.int64)
        cards_of_team = np.ones((m, K), dtype=bool)  # whether each team took any trick (any card)

        full = is_full[idx]
        fi = np.nonzero(full)[0]
        if len(fi):
            rows = idx[fi]
            plays = columns.fixed_list(hands.column("plays"), rows, n_players * n_tricks, np.int8)
            seats = columns.fixed_list(hands.column("play_seats"), rows, n_players * n_tricks, np.int8)
            init_f = columns.fixed_list(hands.column("initial_hands"), rows, n_players, np.uint32)
            dealer = hands.column("dealer").to_numpy(zero_copy_only=False)[rows].astype(np.int8)
            pr = play.play_hands(plays, seats, init_f, dealer, strain[fi], prep.tables, prep.play_rules, n_players)
            cp[fi], cards_of_team[fi], lt[fi] = pr.team_points, pr.took_trick, pr.last_trick_team
            legal[rows] = pr.legal
            has_play[rows] = True
            ill_trick[rows], ill_seat[rows], ill_card[rows], ill_rule[rows] = \
                pr.illegal_trick, pr.illegal_seat, pr.illegal_card, pr.illegal_rule
            winners[rows] = pr.trick_winners
        ti = np.nonzero(~full)[0]
        if len(ti):
            rows = idx[ti]
            taken = columns.fixed_list(hands.column("tricks_taken"), rows, n_players, np.uint32)
            team_mask = np.stack([np.bitwise_or.reduce(taken[:, t::K], axis=1) for t in range(K)], axis=1)  # (k, K)
            bits = ((team_mask[:, :, None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)).astype(np.int64)
            pts = prep.tables.points[np.clip(strain[ti].astype(np.int64), 0, 5)]  # (k, 32)
            cp[ti] = (bits * pts[:, None, :]).sum(axis=2)
            lt[ti] = hands.column("last_trick_seat").to_numpy(zero_copy_only=False)[rows].astype(np.int64) % K
            cards_of_team[ti] = team_mask != 0
        if K == 2:
            cap = np.where(~cards_of_team[:, 1], 0, np.where(~cards_of_team[:, 0], 1, -1))
        else:
            cap = np.where(cards_of_team.sum(axis=1) == 1, np.argmax(cards_of_team, axis=1), -1)
        bonus = np.where(cap >= 0, int(R["cards.capot_last_trick"]), int(R["cards.last_trick"]))
        split = int(R["cards.capot_split_each"]) if K > 2 else 0
        if split:   # 3 players, exactly one took no trick: each of the others scores the split, no last trick
            one_capot = cards_of_team.sum(axis=1) == K - 1
            bonus = np.where(one_capot, 0, bonus)
            cp += np.where(one_capot[:, None] & cards_of_team, split, 0)
        for t in range(K):   # per team column: faster than a 2-D fancy index
            cp[:, t] += np.where(lt == t, bonus, 0)
        cp = _scale(cp, strain, R)
        # a bonus for the team that took every trick, added after any strain scaling (Bulgarian valat +90)
        cp[np.arange(m), np.clip(cap, 0, K - 1)] += np.where(cap >= 0, int(R["cards.capot_bonus"]), 0)

        team_pts = np.zeros((m, K), dtype=np.int64)
        bpts = np.zeros((m, K), dtype=np.int64)
        entry_parts = []   # declarations one by one, rows renumbered to positions in idx
        held_entries = None
        ai = np.nonzero(from_ann[idx])[0]
        if len(ai):
            dec = declarations.from_announced(hands.column("announced").take(pa.array(idx[ai])), strain[ai], R,
                                              n_players)
            team_pts[ai], bpts[ai] = dec.team_points, dec.belote
            dec.entries.row = ai[dec.entries.row]
            entry_parts.append(dec.entries)
        # held declarations/belote from the initial hands (rows without hands only get here when the ruleset
        # counts neither, see needs_hands: they score none)
        hi = np.nonzero(~from_ann[idx] & (hands_len[idx] == n_players))[0]
        if len(hi):
            init = columns.fixed_list(hands.column("initial_hands"), idx[hi], n_players, np.uint32)
            dec = declarations.detect(init, strain[hi], R, prep.decl_tables, entries=True)
            team_pts[hi] = dec.team_points
            bpts[hi] = declarations.belote_points(init, strain[hi], R)
            lost = None
            if R["belote.all_trump"] == "per_suit_led" and len(fi):
                bpts[hi], lost = _belote_led_only(bpts[hi], hi, fi, plays, seats, init, strain, R, K)
            held_entries = declarations.Entries.concat(
                [dec.entries, declarations.belote_entries(init, strain[hi], R, lost)])
            held_entries.row = hi[held_entries.row]
            entry_parts.append(held_entries)
        bpts = bpts.astype(np.int32)
        if K == 2:
            bteam = np.where(bpts[:, 0] > 0, np.where(bpts[:, 1] > 0, -1, 0), np.where(bpts[:, 1] > 0, 1, -1))
        else:
            bteam = np.where((bpts > 0).sum(axis=1) == 1, np.argmax(bpts > 0, axis=1), -1)
        team_decl = declarations.transfer_on_capot(team_pts.astype(np.int32), cap, R, cards_of_team)

        # one pass: the outcome, whether the declarations decide it (same test without them, belote kept), scores
        if K == 2:
            res = contract.settle(cp, team_decl, bpts, T, bid, capot_bid, coinche, cap, R, strain)
        else:
            res = solo.settle_solo(cp, team_decl, bpts, T, R)
        has_decl = _any_column(team_decl != 0)
        decided_m = res.decided
        decl_rows[idx] = has_decl
        decided[idx] = decided_m
        if len(entry_parts) == 1 and entry_parts[0] is held_entries:   # sorted by (row, seat) (a concat, rows mapped in order)
            ent = held_entries
        else:
            ent = declarations.Entries.concat(entry_parts) if entry_parts else declarations.Entries.empty()
        ent.row = idx[ent.row]
        penalty = int(R["play.revoke_penalty"])
        if penalty and len(fi):   # each of the offender's opponents scores the penalty (rules.md R37)
            rows_f = idx[fi]
            bad = ill_rule[rows_f] != 0
            off_team = ill_seat[rows_f].astype(np.int64) % K
            res.hand_score[fi[bad]] += np.where(np.arange(K) != off_team[bad][:, None], penalty, 0).astype(np.int32)

        card_pts[idx] = cp
        last_team[idx] = lt
        capot_team[idx] = cap
        decl_pts[idx] = team_decl
        belote_team[idx] = bteam
        belote_pts[idx] = bpts
        cpoints[idx] = res.contract_points
        made[idx] = res.made
        litige[idx] = res.litige
        score[idx] = res.hand_score
        held[idx] = res.held
        taker_team[idx] = T

    status = np.where(passed, 0, np.where(ok, 1, 2))     # index into _STATUS
    has_taker = ~passed & ~deal_only
    taker_team = np.where(has_taker, team_of_taker, -1).astype(np.int8)
    sc = ok  # rows with a full result
    played = sc & has_play
    score_out = np.where((ok | passed)[:, None], score, 0)

    def fixed(a: np.ndarray, mask: np.ndarray, typ) -> pa.Array:
        flat = pa.array(a.reshape(-1), type=typ)
        offsets = pa.array(np.arange(0, a.size + 1, a.shape[1], dtype=np.int32))
        arr = pa.ListArray.from_arrays(offsets, flat, mask=pa.array(~mask))
        return arr

    def opt(a: np.ndarray, mask: np.ndarray, typ) -> pa.Array:
        return pa.array(a, type=typ, mask=~mask)

    illegal = played & ~legal
    recorded = hands.column("recorded_score")
    rec_ok = recorded.is_valid().to_numpy(zero_copy_only=False) & (pc.fill_null(pc.list_value_length(recorded), 0).to_numpy(zero_copy_only=False) == K)
    matches = np.zeros(n, dtype=bool)
    if rec_ok.any():
        ridx = np.nonzero(rec_ok)[0]
        rec = columns.fixed_list(recorded, ridx, K, np.int64)
        matches[ridx] = ~_any_column(rec != score_out[ridx])
    # sources that record only the difference between the teams (OpenSpiel returns)
    margin = hands.column("recorded_margin")
    m_ok = margin.is_valid().to_numpy(zero_copy_only=False) & ~rec_ok & (K == 2)
    if m_ok.any():
        mv = pc.fill_null(margin, 0).to_numpy(zero_copy_only=False).astype(np.int64)
        matches = np.where(m_ok, (score_out[:, 0] - score_out[:, 1]) == mv, matches)
        rec_ok = rec_ok | m_ok
    cols = {
        "ruleset": pa.repeat(pa.scalar(R.name, pa.string()), n),
        "hand_key": hands.column("hand_key"),
        "game_id": hands.column("game_id"),
        "hand_no": hands.column("hand_no"),
        "source": hands.column("source"),
        "status": columns.strings(status, _STATUS),
        "reason": reasons.column(),
        "legal": opt(legal, played, pa.bool_()),
        "illegal_trick": opt(ill_trick, illegal, pa.int8()),
        "illegal_seat": opt(ill_seat, illegal, pa.int8()),
        "illegal_card": opt(ill_card, illegal, pa.int8()),
        "illegal_rule": columns.strings(ill_rule, play.RULE_NAMES, illegal),
        "taker_team": opt(taker_team, has_taker, pa.int8()),
        "trick_winners": fixed(winners, played, pa.int8()),
        "card_points": fixed(card_pts, sc, pa.int16()),
        "last_trick_team": opt(last_team, sc, pa.int8()),
        "capot_team": opt(capot_team, sc & (capot_team >= 0), pa.int8()),
        "declaration_points": fixed(decl_pts, sc, pa.int16()),
        "declarations": _entries_column(ent, n, sc),
        "declarations_from": columns.strings(from_ann, ("held", "announced"), sc),
        "declarations_decided": opt(decided, sc & ~passed & decl_rows, pa.bool_()),
        "belote_team": opt(belote_team, sc & (belote_team >= 0), pa.int8()),
        "belote_points": fixed(belote_pts, sc, pa.int16()),
        "contract_points": fixed(cpoints, sc, pa.int16()),
        "contract_made": opt(made, sc & ~litige, pa.bool_()),
        "litige": pa.array(litige, type=pa.bool_()),
        "hand_score": fixed(score_out.astype(np.int32), ok | passed, pa.int32()),
        "carried_in": pc.fill_null(hands.column("carried_in"), 0).cast(pa.int32()),
        "held_points": pa.array(held, type=pa.int32()),
        "matches_recorded": opt(matches, rec_ok & (ok | passed), pa.bool_()),
    }
    return schema.conform("scores", pa.table(cols))
