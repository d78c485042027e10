"""Game-level pass: running totals in hand order, litige carry-over, target, winner.

Input: rows of the ``scores`` table for one ruleset (any order). Output: one ``game_scores`` row per
game. Vectorised across games: hands are laid out as a (games x max hands) matrix and the loop runs
over hand positions, never over games.

Rules (ruleset ``[game]`` and ``[contract]``):
* each hand's ``hand_score`` is added to the totals;
* litige (rules.md R29): with ``game.litige_to = "next_hand_winner"`` the held points go to the team that
  wins the next hand that has a winner (made contract -> taker's team, failed -> defence); with
  "next_made_contract" (FFB-B16 §10.1.3) to the team that makes the next contract (a failed contract leaves
  them held); with "higher_hand_score" (Belot_Scorer) to the team scoring strictly more on the next hand that
  does not hang; consecutive litiges accumulate; passed-out hands carry the pot on;
* the game ends after the first hand that leaves a total at or above ``game.target`` (strictly above with
  ``game.target_strict``, BGA) with the highest total held by one team alone (both over: the higher wins).
  The highest total shared (rules.md R36): with ``game.end_tie = "play_on"`` the game goes on; with
  "latest_deal_winner" (pagat coinche) the team that won that hand (made -> takers, failed -> defence) wins when
  it is one of the tied teams, else play goes on; with "first_team" (colver) team 0 wins when it is one of them;
* ``game.no_win_on_belote_alone`` (FFB-Co15 §10.3): the leading team cannot win at a hand where its contract
  failed or it took no trick, unless it would also have won without what it scored on that hand (its belote);
  with ``game.belote_alone_when = "capot"`` (FFB-Bweb) only a hand where it took no trick stops it;
* with ``game.no_exit_on_capot`` a capot/valat hand never ends it (Bulgarian, BG-HIT);
* ``game.exit_needs``: "winner_points": the hand ends the game only when the team that would win scored points on
  it (BG-NIK BelotGame.PlayGame: after a valat, the next hand ends the game only if someone scores past the
  leader); "loser_cards": only when every team that would lose took card points in it (Belot_Scorer endsMatch;
  a summary hand, with no card points recorded, never defers the end; a passed-out hand never ends the game).
* recorded penalties (``scores.penalty_points``, the ruleset's ``[penalties]``, 0 or negative) are added to the
  totals with the hand's score (summary hands included);
* ``game.claims`` (seed 001's declaring out: a player saying he has finished): a hand whose record holds a
  claim (``scores.claim_team``) stops the game there: the claimant's side wins when its total before the hand
  plus its ``claim_points`` reach the target (``game.target_strict`` applies), else the other side wins (the
  best placed other player with 3), even with a lower total; a claim with one trick or none left
  (``claim_note`` "not allowed") is a wrong claim, and one that could not be judged (no play record) is
  ignored. ``totals_at_end`` is then the totals before the hand plus each team's ``claim_points``, and
  ``end_reason`` says 'claim' or 'wrong_claim' ('target' otherwise).
A summary-level hand (points only, as on a score sheet, or a hand ``--on-error lenient`` kept without its plays)
has no cards to rescore: it counts the score its source recorded (``summary_score``, which the caller gives for
those hands; the reports count the same points), and, its contract's result being unknown, does not decide
litige. Other unscorable hands count 0-0 and do not decide litige either. ``unscorable_hands`` says how many
hands of a game were not rescored (summary hands included): its totals and winner are then those of its rescored
hands plus the recorded scores of its summary hands.

Teams: 2 with 2 or 4 players, 3 with 3 players (each plays for himself; totals and the winner are per player).
With 3 players a failed hand's winner (for a held litige) is the opponent scoring strictly more on it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.storage import schema
from pipeline.rules import Ruleset


def _leader(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game (row of ``totals``, int64 (G, K) game points) the team with the highest total (int64 (G,)) and
    whether it holds it alone (bool (G,))."""
    high = totals.max(axis=1)
    return np.argmax(totals, axis=1), (totals == high[:, None]).sum(axis=1) == 1


END_REASONS = ("target", "claim", "wrong_claim")
"""``game_scores.end_reason``: a total reached the target, a right claim, a wrong claim (game.claims)."""


def _per_team(t: pa.Table, name: str, K: int) -> np.ndarray:
    """int64 (n, K) of the list column ``name`` of ``t`` (K values per row), 0 where null or of another length."""
    out = np.zeros((t.num_rows, K), np.int64)
    if name not in t.column_names:
        return out
    col = t.column(name)
    sizes = pc.fill_null(pc.list_value_length(col), 0).to_numpy(zero_copy_only=False)
    use = np.nonzero(sizes == K)[0]
    if len(use):
        vals = pc.list_flatten(col.take(pa.array(use)).combine_chunks())
        out[use] = pc.fill_null(vals, 0).to_numpy(zero_copy_only=False).astype(np.int64).reshape(-1, K)
    return out


SUMMARY_SCORE = "summary_score"
"""Optional column of :func:`game_pass`'s input: list<int32> game points per team, the recorded score of a
summary-level hand (``hands.recorded_score`` where ``hands.completeness = 'summary'``), null on every other row."""


def game_pass(scores: pa.Table, rules: Ruleset, targets: dict[str, int] | None = None) -> pa.Table:
    """Game results (``game_scores`` schema) from a ruleset's ``scores`` rows, plus, optionally, a
    :data:`SUMMARY_SCORE` column: the recorded score (game points, one per team) of each summary-level hand,
    counted in the totals where the hand has no ``hand_score`` (see the module text).

    ``targets`` maps game_id -> the game's recorded target; used instead of ``game.target`` when the ruleset
    sets ``game.target_from_record`` (the target is a per-table option in some sources)."""
    if scores.num_rows == 0:
        return schema.empty("game_scores")
    K = rules.n_teams
    cols = ["game_id", "hand_no", "source", "status", "hand_score", "held_points", "litige", "taker_team",
            "contract_made"] + [c for c in ("capot_team", "carried_in", SUMMARY_SCORE, "penalty_points", "claim_team",
                                            "claim_points", "claim_note", "card_points") if c in scores.column_names]
    t = scores.select(cols).sort_by([("game_id", "ascending"), ("hand_no", "ascending")])
    gid = t.column("game_id").to_numpy(zero_copy_only=False)
    n = len(gid)
    starts = np.r_[0, np.nonzero(gid[1:] != gid[:-1])[0] + 1]
    G = len(starts)
    lengths = np.diff(np.r_[starts, n])
    game_of = np.repeat(np.arange(G), lengths)
    pos = np.arange(n) - starts[game_of]
    H = int(lengths.max())

    ok = pc.is_valid(t.column("hand_score")).to_numpy(zero_copy_only=False)
    hs = np.zeros((n, K), dtype=np.int64)
    idx = np.nonzero(ok)[0]
    if len(idx):
        flat = pc.list_flatten(t.column("hand_score").take(pa.array(idx)).combine_chunks()).to_numpy(zero_copy_only=False)
        hs[idx] = flat.reshape(-1, K)
    if SUMMARY_SCORE in t.column_names:     # summary hands: their recorded score (a list of K values, else 0-0)
        rec = t.column(SUMMARY_SCORE)
        sizes = pc.fill_null(pc.list_value_length(rec), 0).to_numpy(zero_copy_only=False)
        # also where the engine scored a summary hand nobody took as passed out (0 - 0): a round not played whose
        # source recorded a score (carg's misère, misdeal, foul play) counts that score, as the reports count it
        use = np.nonzero(sizes == K)[0]
        if len(use):
            vals = pc.list_flatten(rec.take(pa.array(use)).combine_chunks())
            hs[use] = pc.fill_null(vals, 0).to_numpy(zero_copy_only=False).astype(np.int64).reshape(-1, K)
    # recorded penalties (scores.penalty_points, 0 or negative): not in the hand score, counted in the totals
    pen = _per_team(t, "penalty_points", K)
    # claims (game.claims): the claimant's team, each team's points at the claim, whether it was not allowed
    claim_team = np.full(n, -1, np.int64)
    claim_pts = np.zeros((n, K), np.int64)
    claim_bad = np.zeros(n, bool)
    claim_judged = np.zeros(n, bool)
    if rules["game.claims"] and "claim_team" in t.column_names:
        claim_team = pc.fill_null(t.column("claim_team"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
        claim_pts = _per_team(t, "claim_points", K)
        judged = pc.is_valid(t.column("claim_points")).to_numpy(zero_copy_only=False)
        note = t.column("claim_note") if "claim_note" in t.column_names else pa.nulls(n, pa.string())
        claim_bad = pc.fill_null(pc.starts_with(note, "not allowed"), False).to_numpy(zero_copy_only=False)
        noted = pc.is_valid(note).to_numpy(zero_copy_only=False)
        # a claim counts when judged from the play (no note), or when it was not allowed (a wrong claim)
        claim_judged = (claim_team >= 0) & ((judged & ~noted) | claim_bad)
        claim_team = np.where(claim_judged, claim_team, -1)
    made = pc.fill_null(t.column("contract_made"), False).to_numpy(zero_copy_only=False)
    lit = t.column("litige").to_numpy(zero_copy_only=False)
    decided = pc.is_valid(t.column("contract_made")).to_numpy(zero_copy_only=False) & ok
    taker = pc.fill_null(t.column("taker_team"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    # the team scoring strictly more than every other on a hand (-1 when the best score is shared)
    best = hs.max(axis=1, keepdims=True)
    top = np.where((hs == best).sum(axis=1) == 1, np.argmax(hs, axis=1), -1)
    # the team that won each deal: made -> the taker's team, failed -> the defence (with 3 players the opponent
    # scoring strictly more on it); -1 when nobody did (passed out, litige, unscorable, 3-player tie)
    if K == 2:
        deal_winner = np.where(decided, np.where(made, taker, 1 - taker), -1)
    else:
        deal_winner = np.where(decided, np.where(made, taker, np.where(top != taker, top, -1)), -1)
    litige_to = rules["game.litige_to"]
    if litige_to == "higher_hand_score":   # the team scoring more on the next hand (Belot_Scorer)
        winner_hand = np.where(ok & ~lit, top, -1)
    elif litige_to == "next_made_contract":   # FFB-B16 §10.1.3: the team that makes the next contract
        winner_hand = np.where(decided & made, taker, -1)
    else:   # "next_hand_winner"
        winner_hand = deal_winner
    # teams whose whole hand score is what they keep without winning the deal (their belote): the takers of a
    # failed contract and a team that took no trick (capot against it); game.no_win_on_belote_alone
    team_ids = np.arange(K)[None, :]
    # game.belote_alone_when "capot" (FFB-Bweb: 'la seule condition est de ne pas être capot'): a failed contract
    # does not stop its takers winning on their belote, only a hand where the team took no trick does
    failed_blocks = rules["game.belote_alone_when"] == "failed_or_capot"
    belote_only = (decided & ~made & failed_blocks)[:, None] & (taker[:, None] == team_ids)
    if "capot_team" in t.column_names:
        cap = pc.fill_null(t.column("capot_team"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
        belote_only |= (cap >= 0)[:, None] & (cap[:, None] != team_ids)
    held = t.column("held_points").to_numpy(zero_copy_only=False).astype(np.int64)
    # game.exit_needs "loser_cards": whether each team took card points in each hand (True where a played hand
    # records no card points, a summary hand: nothing to judge, the end is not deferred; False on a passed-out
    # hand: Belot_Scorer keeps no deal without a contract, so such a hand never ends the match)
    exit_needs = rules["game.exit_needs"]
    took_cards = _per_team(t, "card_points", K) > 0
    if "card_points" in t.column_names:
        played = ~pc.fill_null(pc.equal(t.column("status"), "passed_out"), False).to_numpy(zero_copy_only=False)
        took_cards |= (~pc.is_valid(t.column("card_points")).to_numpy(zero_copy_only=False) & played)[:, None]
    else:
        took_cards[:] = True

    M_score = np.zeros((G, H, K), dtype=np.int64)
    M_win = np.full((G, H), -1, dtype=np.int64)
    M_held = np.zeros((G, H), dtype=np.int64)
    M_lit = np.zeros((G, H), dtype=bool)
    M_valid = np.zeros((G, H), dtype=bool)
    M_no = np.zeros((G, H), dtype=np.int64)
    M_capot = np.zeros((G, H), dtype=bool)
    M_carry = np.zeros((G, H), dtype=np.int64)
    M_dwin = np.full((G, H), -1, dtype=np.int64)
    M_bonly = np.zeros((G, H, K), dtype=bool)
    M_cards = np.ones((G, H, K), dtype=bool)
    M_cards[game_of, pos] = took_cards
    M_dwin[game_of, pos] = deal_winner
    M_bonly[game_of, pos] = belote_only
    if "carried_in" in t.column_names:
        M_carry[game_of, pos] = pc.fill_null(t.column("carried_in"), 0).to_numpy(zero_copy_only=False)
    if "capot_team" in t.column_names:
        M_capot[game_of, pos] = t.column("capot_team").is_valid().to_numpy(zero_copy_only=False)
    M_score[game_of, pos] = hs + pen
    M_claim = np.full((G, H), -1, dtype=np.int64)
    M_claim_pts = np.zeros((G, H, K), dtype=np.int64)
    M_claim_bad = np.zeros((G, H), dtype=bool)
    M_claim[game_of, pos] = claim_team
    M_claim_pts[game_of, pos] = claim_pts
    M_claim_bad[game_of, pos] = claim_bad
    M_win[game_of, pos] = winner_hand
    M_held[game_of, pos] = held
    M_lit[game_of, pos] = lit
    M_valid[game_of, pos] = True
    M_no[game_of, pos] = t.column("hand_no").to_numpy(zero_copy_only=False)

    target = np.full(G, int(rules["game.target"]), dtype=np.int64)
    if rules["game.target_from_record"] and targets:
        target = np.array([targets.get(g) or int(rules["game.target"]) for g in gid[starts]], dtype=np.int64)
    totals = np.zeros((G, K), dtype=np.int64)
    pot = np.zeros(G, dtype=np.int64)
    ended = np.zeros(G, dtype=bool)
    ended_at = np.zeros(G, dtype=np.int64)
    at_end = np.zeros((G, K), dtype=np.int64)
    winner = np.zeros(G, dtype=np.int64)
    reason = np.zeros(G, dtype=np.int8)        # index into END_REASONS, for the ended games
    rows = np.arange(G)
    end_tie = rules["game.end_tie"]
    strict = bool(rules["game.target_strict"])   # over the target (BGA) rather than at it (FFB)

    def reached(points: np.ndarray) -> np.ndarray:
        return points > target if strict else points >= target
    no_belote_win = bool(rules["game.no_win_on_belote_alone"])
    for h in range(H):
        v = M_valid[:, h]
        # a claim (game.claims, seed 001's declaring out): the hand stops there; the claimant's side wins when its
        # total before the hand plus its points at the claim reach the target, else it loses the game
        ct = M_claim[:, h]
        claimed = v & ~ended & (ct >= 0)
        if claimed.any():
            ctn = np.maximum(ct, 0)
            at_claim = totals + M_claim_pts[:, h]
            right = claimed & ~M_claim_bad[:, h] & reached(at_claim[rows, ctn])
            wrong = claimed & ~right
            if K == 2:
                other = 1 - ctn
            else:      # the best placed of the others (seed 001: the opponent wins it)
                rest = np.where(np.arange(K)[None, :] == ctn[:, None], np.iinfo(np.int64).min, at_claim)
                other = np.argmax(rest, axis=1)
            ended_at = np.where(claimed, M_no[:, h], ended_at)
            at_end = np.where(claimed[:, None], at_claim, at_end)
            winner = np.where(right, ctn, np.where(wrong, other, winner))
            reason = np.where(right, 1, np.where(wrong, 2, reason)).astype(np.int8)
            ended |= claimed
        pot = pot + np.where(v, M_carry[:, h], 0)
        before = totals.copy() if exit_needs == "winner_points" else None
        totals += np.where(v[:, None], M_score[:, h], 0)
        w = M_win[:, h]
        give = v & (w >= 0) & (pot > 0)
        totals[rows[give], w[give]] += pot[give]
        pot = np.where(give, 0, pot)
        pot = pot + np.where(v & M_lit[:, h], M_held[:, h], 0)
        lead, alone = _leader(totals)
        high = totals[rows, lead]
        done = v & ~ended & reached(high) & alone
        if no_belote_win:   # FFB-Co15 §10.3: failed or capot, a team cannot win on its belote points alone
            own = M_score[rows, h, lead]
            without = totals.copy()
            without[rows, lead] -= own
            lead2, alone2 = _leader(without)
            still = (lead2 == lead) & alone2 & reached(without[rows, lead])
            done &= ~(M_bonly[rows, h, lead] & (own > 0) & ~still)
        champ = lead
        if end_tie == "latest_deal_winner":   # pagat coinche: equal totals over the target -> this deal's winners
            dw = M_dwin[:, h]
            tied_win = v & ~ended & reached(high) & ~alone & (dw >= 0)
            tied_win &= totals[rows, np.maximum(dw, 0)] == high
            done |= tied_win
            champ = np.where(tied_win, dw, lead)
        elif end_tie == "first_team":   # colver game_loop.rs: both over and equal -> NS (team 0)
            tied0 = v & ~ended & reached(high) & ~alone & (totals[:, 0] == high)
            done |= tied0
            champ = np.where(tied0, 0, lead)
        if rules["game.no_exit_on_capot"]:   # "С капо не се излиза": a valat hand never ends the game
            done &= ~M_capot[:, h]
        if exit_needs == "winner_points":   # BG-NIK: the winners must have scored on this hand
            done &= (totals - before)[rows, champ] > 0
        elif exit_needs == "loser_cards":   # Belot_Scorer: every team that would lose took card points on it
            others = np.arange(K)[None, :] != champ[:, None]
            done &= (M_cards[:, h] | ~others).all(axis=1)
        ended_at = np.where(done, M_no[:, h], ended_at)
        at_end = np.where(done[:, None], totals, at_end)
        winner = np.where(done, champ, winner)
        ended |= done

    def lists(a, mask=None):
        offsets = pa.array(np.arange(0, K * len(a) + 1, K, dtype=np.int32))
        return pa.ListArray.from_arrays(offsets, pa.array(a.reshape(-1), type=pa.int32()),
                                        mask=None if mask is None else pa.array(~mask))

    unscorable = np.bincount(game_of, weights=~ok, minlength=G).astype(np.int32)
    src = t.column("source").to_numpy(zero_copy_only=False)[starts]
    out = pa.table({
        "ruleset": pa.array([rules.name] * G, type=pa.string()),
        "game_id": pa.array(gid[starts], type=pa.string()),
        "game_key": pa.nulls(G, pa.string()),     # the caller knows it (sorted_games.game_results)
        "source": pa.array(src, type=pa.string()),
        "n_hands": pa.array(lengths.astype(np.int32)),
        "totals": lists(totals),
        "totals_at_end": lists(at_end, ended),
        "ended_at_hand": pa.array(ended_at.astype(np.int32), mask=~ended),
        "winner": pa.array(winner.astype(np.int8), mask=~ended),
        "end_reason": pa.DictionaryArray.from_arrays(pa.array(reason, pa.int8(), mask=~ended),
                                                     pa.array(END_REASONS)).cast(pa.string()),
        "unresolved_held": pa.array(pot.astype(np.int32)),
        "unscorable_hands": pa.array(unscorable),
    })
    return schema.conform("game_scores", out)
