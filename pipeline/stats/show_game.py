"""`rebelote show --game`: a whole game explained, each hand's breakdown (:mod:`pipeline.stats.show`) then the
running totals hand by hand, litige points held and received, and the result or why the game is not finished,
each line with the ruleset parameter behind it."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from pipeline.rules import Ruleset
from pipeline.rescore import score_batch
from pipeline.stats.show import _line, explain, render
from pipeline.storage import schema


def breakdowns(hands: list[dict[str, Any]], rules: list[Ruleset], whole: bool = True,
               target: int | None = None, dd: dict[tuple[str, str], dict] | None = None) -> list[list[dict[str, Any]]]:
    """Per hand of ``hands`` (one game's rows, in order), its breakdown under each ruleset of ``rules``; with
    ``whole``, then the game's running totals and result under each (:func:`game_summary`, ``target``: its
    recorded target). ``dd``: (ruleset name, hand_key) -> the hand's ``dd_hands`` row, where analysed. Each item
    is what :func:`render` takes."""
    dd = dd or {}
    table = pa.Table.from_pylist(hands, schema=schema.schema("hands"))
    scores = [score_batch(table, r) for r in rules]        # each ruleset scores the game's hands at once
    rows = [s.to_pylist() for s in scores]
    out = [[explain(h, r, dd.get((r.name, h["hand_key"])), rows[j][i]) for j, r in enumerate(rules)]
           for i, h in enumerate(hands)]
    if whole:
        out.append([game_summary(hands, r, target, scores[j], table) for j, r in enumerate(rules)])
    return out


def game_text(hands: list[dict[str, Any]], rules: Ruleset, target: int | None = None, width: int = 80) -> str:
    """The whole game explained as ``rebelote show --game`` prints it (plain text, no colour): each hand's
    breakdown, then the running totals and result, blocks separated by a blank line."""
    return "\n\n".join(render(b, width=width) for b in breakdowns(hands, [rules], True, target))


def unfinished_reason(totals: list[int], target: int, last: dict[str, Any] | None,
                      rules: Ruleset) -> tuple[str, str]:
    """Why a game that no hand ended is not finished, and the ruleset parameter behind it.

    ``totals``: final totals per team (game points); ``target``: the game target (game points); ``last``: the
    ``scores`` row of the game's last hand (None when it has none). Returns (text, 'section.key')."""
    high = max(totals)
    if rules["game.target_strict"] and high == target:
        return f"not finished: {high} reaches the target {target} without going over it", "game.target_strict"
    if high < target:
        return f"not finished: no team reached {target}", "game.target"
    tied = [t for t, x in enumerate(totals) if x == high]
    if len(tied) > 1:
        names = " and ".join(f"team {t}" for t in tied)
        if rules["game.end_tie"] == "latest_deal_winner":
            return (f"not finished: {names} reached {target} with equal totals ({high}) and none of them won the "
                    "latest deal: play on", "game.end_tie")
        return f"not finished: {names} reached {target} with equal totals ({high}): play on", "game.end_tie"
    lead = tied[0]
    if last is not None and rules["game.no_exit_on_capot"] and last.get("capot_team") is not None:
        return (f"not finished: team {lead} reached {high} on hand {last['hand_no']}, a capot, which cannot end "
                "the game: play on", "game.no_exit_on_capot")
    if last is not None and rules["game.exit_needs"] == "winner_points":
        return (f"not finished: team {lead} leads with {high}, but the hand that ends the game must bring the winners "
                "points: play on", "game.exit_needs")
    if last is not None and rules["game.exit_needs"] == "loser_cards":
        return (f"not finished: team {lead} leads with {high}, but the losers took no card point on hand "
                f"{last['hand_no']}: play on", "game.exit_needs")
    if last is not None and rules["game.no_win_on_belote_alone"]:
        how = "was capot" if last.get("capot_team") not in (None, lead) else "failed its contract"
        return (f"not finished: team {lead} reached {high} on hand {last['hand_no']}, where it {how}: it cannot "
                f"win on the {last['hand_score'][lead]} points it kept (its belote) alone: play on",
                "game.no_win_on_belote_alone")
    return f"not finished: team {lead} leads with {high}", "game.target"


def game_target(lake, game_id: str) -> int | None:
    """The target (game points) the ``games`` row of ``game_id`` records, None when it records none."""
    import pyarrow.compute as pc

    from pipeline.storage import lake as lakemod
    rows = lakemod.read(lake, "games", columns=["target"], filter=pc.field("game_id") == game_id).to_pylist()
    return next((r["target"] for r in rows if r["target"]), None)


def _carried(carried: list[int]) -> str:
    """Words for the litige points (game points per team) a summary hand's recorded totals add to its score."""
    return " and ".join(f"{v} held by a litige to team {t}" for t, v in enumerate(carried) if v) + \
        " (the source's running totals add them)"


def game_summary(hands: list[dict[str, Any]], rules: Ruleset, target: int | None = None,
                 scores: pa.Table | None = None, table: pa.Table | None = None) -> dict[str, Any]:
    """Running totals of a game under ``rules``: per hand the score, litige points held or received, and the
    totals after it (the game pass of :mod:`pipeline.rescore.game`, hand by hand), then the result.

    ``target``: the game's recorded target (``games.target``, game points; :func:`game_target`), which replaces
    ``game.target`` when the ruleset sets ``game.target_from_record``, as in the rescore's game pass. ``scores``:
    ``score_batch`` of ``hands`` under ``rules``, and ``table`` the hands as an Arrow table of the ``hands``
    schema, when the caller has them."""
    from pipeline.rescore.game import SUMMARY_SCORE
    from pipeline.facts.summary_points import summary_points

    game_id = hands[0]["game_id"]
    goal = int(target if target and rules["game.target_from_record"] else rules["game.target"])
    if table is None:
        table = pa.Table.from_pylist(hands, schema=schema.schema("hands"))
    if scores is None:
        scores = score_batch(table, rules)
    # a summary hand counts its recorded score plus the litige points its source's totals add on it
    points = summary_points(table) if any(h.get("completeness") == "summary" for h in hands) else {}
    summary = [points.get(h.get("hand_key"), {}).get("points") for h in hands]
    scores = scores.append_column(SUMMARY_SCORE, pa.array(summary, pa.list_(pa.int32())))
    lines = []
    before, pending = [0] * rules.n_teams, 0
    running = _running(scores, rules, target)
    for k, s in enumerate(scores.to_pylist(), 1):
        g = running[k - 1]
        held = f", {s['held_points']} held" if s["held_points"] else ""
        # litige points held by earlier hands and given at this one (game.litige_to): what the totals add beyond
        # the hand's own score, said only when it is exactly what the pending points went down by (a penalty or a
        # recorded score counted instead would also move the totals)
        got = ([t - b - h for t, b, h in zip(g["totals"], before, s["hand_score"])]
               if pending and isinstance(s["hand_score"], list) and len(s["hand_score"]) == len(before) else [])
        released = pending + (s["held_points"] or 0) - g["unresolved_held"]
        if any(got) and min(got) >= 0 and sum(got) == released:
            held += f", + {got} held by an earlier litige"
        before, pending = g["totals"], g["unresolved_held"]
        score = s["hand_score"]
        rec = s[SUMMARY_SCORE]
        if s["status"] == "passed_out" and rec is not None and len(rec) == rules.n_teams:
            # a summary hand nobody took (carg's misère, misdeal, foul play): its recorded score counts
            score = f"{rec} as recorded (passed out: a summary hand nobody took counts the score its source recorded)"
        elif score is None:    # not rescored: what the totals count instead, and why
            carried = points.get(hands[k - 1].get("hand_key"), {}).get("carried")
            rec = (f"{hands[k - 1]['recorded_score']} as recorded + {_carried(carried)} = {rec}" if carried
                   else f"{rec} as recorded")
            counted = s[SUMMARY_SCORE] is not None and len(s[SUMMARY_SCORE]) == rules.n_teams
            if s[SUMMARY_SCORE] is not None and not counted:   # the game pass counts it 0 - 0 (one value a team)
                score = (f"counts 0 - 0: {s['status']} ({s['reason']}; its recorded score {s[SUMMARY_SCORE]} has "
                         f"{len(s[SUMMARY_SCORE])} values, the ruleset {rules.n_teams} teams)")
            else:
                score = f"{rec} ({s['reason']})" if counted else f"counts 0 - 0: {s['status']} ({s['reason']})"
        lines.append(_line(f"hand {s['hand_no']}", f"{score}{held} -> totals {g['totals']}"
                           + (f" (pending {g['unresolved_held']})" if g["unresolved_held"] else ""),
                           "game.litige_to", hands[k - 1].get("recorded_totals")))
    g = running[-1]
    if g["winner"] is not None and g.get("end_reason") in ("claim", "wrong_claim"):
        how = "a right claim" if g["end_reason"] == "claim" else "the other side's wrong claim"
        result, param = (f"team {g['winner']} wins at hand {g['ended_at_hand']} on {how} (declaring out), with "
                         f"{g['totals_at_end']} at the claim", "game.claims")
    elif g["winner"] is not None:
        result, param = f"team {g['winner']} wins at hand {g['ended_at_hand']} with {g['totals_at_end']}", "game.target"
        if g["totals_at_end"].count(max(g["totals_at_end"])) > 1:
            result += (" (equal totals: team 0 wins)" if rules["game.end_tie"] == "first_team"
                       else " (equal totals: the winners of that deal win)")
            param = "game.end_tie"
    else:
        last = scores.slice(scores.num_rows - 1, 1).to_pylist()[0] if scores.num_rows else None
        result, param = unfinished_reason(g["totals"], goal, last, rules)
    lines.append(_line("result", result, param))
    return {"ruleset": rules.name, "game_id": game_id, "hand_no": "all",
            "sections": [{"title": "Game", "lines": lines}], "totals": g["totals"], "winner": g["winner"]}


PREFIX_ROWS = 1 << 16
"""Rows of prefixes given to one call of the game pass by :func:`_running`: a game of n hands has n (n + 1) / 2
rows of prefixes, so a long one (a whole session filed as one game) is passed in groups, memory bounded."""


def _running(scores: pa.Table, rules: Ruleset, target: int | None) -> list[dict[str, Any]]:
    """The game pass's row after each hand of one game's ``scores`` (in hand order): every prefix of the game
    passed as a game of its own, the prefixes in groups of about :data:`PREFIX_ROWS` rows a call of
    :func:`pipeline.rescore.game_pass`, rather than one call per hand."""
    from pipeline.rescore import game_pass

    i = scores.schema.get_field_index("game_id")
    field = scores.schema.field(i)
    rows: dict[str, dict[str, Any]] = {}
    group: list[pa.Table] = []
    size = 0
    for k in range(1, scores.num_rows + 1):
        group.append(scores.slice(0, k).set_column(i, field, pa.array([str(k)] * k, field.type)))   # prefix k
        size += k
        if size >= PREFIX_ROWS or k == scores.num_rows:
            ids = [t.column(i)[0].as_py() for t in group]
            out = game_pass(pa.concat_tables(group), rules, {g: target for g in ids} if target else None)
            rows.update((r["game_id"], r) for r in out.to_pylist())
            group, size = [], 0
    return [rows[str(k)] for k in range(1, scores.num_rows + 1)]
