"""Game-level pass: running totals in hand order, litige carry-over, target, winner.

Input: rows of the ``scores`` table for one ruleset (any order). Output: one ``game_scores`` row per
game. Vectorised across games: hands are laid out as a (games x max hands) matrix and the loop runs
over hand positions, never over games.

Rules (ruleset ``[game]`` and ``[contract]``):
* each hand's ``hand_score`` is added to the totals;
* litige (rules.md R29): with ``game.litige_to = "next_hand_winner"`` the held points go to the team that
  wins the next hand that has a winner (made contract -> taker's team, failed -> defence); with
  "higher_hand_score" (Belot_Scorer) to the team scoring strictly more on the next hand that does not hang;
  consecutive litiges accumulate; passed-out hands carry the pot on;
* the game ends after the first hand that leaves a total at or above ``game.target`` with the highest total
  held by one team alone (both over: the higher wins; equal: play on, rules.md R36); with
  ``game.no_exit_on_capot`` a capot/valat hand never ends it (Bulgarian, BG-HIT).
Unscorable hands count 0-0 and do not decide litige; ``unscorable_hands`` says how many a game has (its totals
and winner are then those of its other hands only).

Teams: 2 with 2 or 4 players, 3 with 3 players (each plays for himself; totals and the winner are per player).
With 3 players a failed hand's winner (for a held litige) is the opponent scoring strictly more on it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import schema
from pipeline.rules import Ruleset


def game_pass(scores: pa.Table, rules: Ruleset, targets: dict[str, int] | None = None) -> pa.Table:
    """Game results (``game_scores`` schema) from a ruleset's ``scores`` rows.

    ``targets`` maps game_id -> the game's recorded target; used instead of ``game.target`` when the ruleset
    sets ``game.target_from_record`` (the target is a per-table option in some sources)."""
    if scores.num_rows == 0:
        return schema.empty("game_scores")
    K = rules.n_teams
    cols = ["game_id", "hand_no", "source", "status", "hand_score", "held_points", "litige", "taker_team",
            "contract_made"] + [c for c in ("capot_team", "carried_in") if c in scores.column_names]
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
    made = pc.fill_null(t.column("contract_made"), False).to_numpy(zero_copy_only=False)
    lit_col = t.column("litige").to_numpy(zero_copy_only=False)
    decided = pc.is_valid(t.column("contract_made")).to_numpy(zero_copy_only=False) & ok
    taker = pc.fill_null(t.column("taker_team"), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    # the team scoring strictly more than every other on a hand (-1 when the best score is shared)
    best = hs.max(axis=1, keepdims=True)
    top = np.where((hs == best).sum(axis=1) == 1, np.argmax(hs, axis=1), -1)
    if rules["game.litige_to"] == "higher_hand_score":   # the team scoring more on the next hand (Belot_Scorer)
        winner_hand = np.where(ok & ~lit_col, top, -1)
    elif K == 2:
        winner_hand = np.where(decided, np.where(made, taker, 1 - taker), -1)
    else:   # failed with 3 players: the opponent scoring more on the hand
        winner_hand = np.where(decided, np.where(made, taker, np.where(top != taker, top, -1)), -1)
    held = t.column("held_points").to_numpy(zero_copy_only=False).astype(np.int64)
    lit = t.column("litige").to_numpy(zero_copy_only=False)

    M_score = np.zeros((G, H, K), dtype=np.int64)
    M_win = np.full((G, H), -1, dtype=np.int64)
    M_held = np.zeros((G, H), dtype=np.int64)
    M_lit = np.zeros((G, H), dtype=bool)
    M_valid = np.zeros((G, H), dtype=bool)
    M_no = np.zeros((G, H), dtype=np.int64)
    M_capot = np.zeros((G, H), dtype=bool)
    M_carry = np.zeros((G, H), dtype=np.int64)
    if "carried_in" in t.column_names:
        M_carry[game_of, pos] = pc.fill_null(t.column("carried_in"), 0).to_numpy(zero_copy_only=False)
    if "capot_team" in t.column_names:
        M_capot[game_of, pos] = t.column("capot_team").is_valid().to_numpy(zero_copy_only=False)
    M_score[game_of, pos] = hs
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
    rows = np.arange(G)
    for h in range(H):
        v = M_valid[:, h]
        pot = pot + np.where(v, M_carry[:, h], 0)
        totals += np.where(v[:, None], M_score[:, h], 0)
        w = M_win[:, h]
        give = v & (w >= 0) & (pot > 0)
        totals[rows[give], w[give]] += pot[give]
        pot = np.where(give, 0, pot)
        pot = pot + np.where(v & M_lit[:, h], M_held[:, h], 0)
        high = totals.max(axis=1)
        alone = (totals[:, 0] != totals[:, 1]) if K == 2 else ((totals == high[:, None]).sum(axis=1) == 1)
        done = v & ~ended & (high >= target) & alone
        if rules["game.no_exit_on_capot"]:   # "С капо не се излиза": a valat hand never ends the game
            done &= ~M_capot[:, h]
        ended_at = np.where(done, M_no[:, h], ended_at)
        at_end = np.where(done[:, None], totals, at_end)
        ended |= done
    winner = np.argmax(at_end, axis=1)

    def lists(a, mask=None):
        offsets = pa.array(np.arange(0, K * len(a) + 1, K, dtype=np.int32))
        return pa.ListArray.from_arrays(offsets, pa.array(a.reshape(-1), type=pa.int32()),
                                        mask=None if mask is None else pa.array(~mask))

    unscorable = np.bincount(game_of, weights=~ok, minlength=G).astype(np.int32)
    src = t.column("source").to_numpy(zero_copy_only=False)[starts]
    out = pa.table({
        "ruleset": pa.array([rules.name] * G, type=pa.string()),
        "game_id": pa.array(gid[starts], type=pa.string()),
        "source": pa.array(src, type=pa.string()),
        "n_hands": pa.array(lengths.astype(np.int32)),
        "totals": lists(totals),
        "totals_at_end": lists(at_end, ended),
        "ended_at_hand": pa.array(ended_at.astype(np.int32), mask=~ended),
        "winner": pa.array(winner.astype(np.int8), mask=~ended),
        "unresolved_held": pa.array(pot.astype(np.int32)),
        "unscorable_hands": pa.array(unscorable),
    })
    return schema.conform("game_scores", out)
