"""`rebelote show`: one hand's score explained step by step, under one or two rulesets.

:func:`explain` returns the breakdown as data: a list of sections, each a list of lines
``{"label", "value", "param", "recorded", "key"}``. ``param`` names the ruleset parameter(s) that produced the
line, so a reader sees which rule to change; ``recorded`` is the source's own value where it has one; ``key``
says what the line is about, the same under every ruleset (the label, except that the made/failed comparison
is ``"made test"`` whether the ruleset compares the taker's total with the bid or with the defence). The final
score is the one :func:`pipeline.rescore.score_batch` computes for the hand (the same function, run on the
same row), so the breakdown and the scores table cannot disagree.

Two breakdowns side by side are paired line by line by :func:`pair_rows`: within a section, the n-th line
with a key on one side faces the n-th line with that key on the other, and a line only one side has faces
a gap. :func:`render` turns one or two breakdowns into text, each side's line followed by its own
parameter(s), lines that differ marked ``*`` (stacked, one ruleset's line above the other's, where a terminal
is too narrow for the two side by side); :func:`mark_differences` writes the same pairing into the
breakdowns for ``--format json`` (``"differs"`` on every line). A whole game, its totals and result:
:mod:`pipeline.stats.show_game`.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.storage import schema
from pipeline.cards import ALL_TRUMP, NO_TRUMP, RANKS, STRAINS, SUITS, card_str, cards_of
from pipeline.rescore import declaration_contest as contest, declarations as decl
from pipeline.rescore import play, score_batch
from pipeline.rescore.tables import build
from pipeline.trick_order import PLAIN_ORDER, TRUMP_ORDER
from pipeline.rules import Ruleset, n_teams
from pipeline.words import count

#: who receives held litige points, per ``game.litige_to`` (:mod:`pipeline.rescore.game`)
_LITIGE_TO = {"next_hand_winner": "the winner of the next hand",
              "next_made_contract": "the team that makes the next contract",
              "higher_hand_score": "the team scoring more on the next hand that does not hang"}


def _pts(values: list[int]) -> str:
    """Per-team (per-player with 3 players) values as 'a - b' or 'a - b - c'."""
    return " - ".join(str(v) for v in values)


def _line(label: str, value: Any, param: str | None = None, recorded: Any = None,
          key: str | None = None) -> dict[str, Any]:
    """One line of a breakdown; ``key`` (default: the label) pairs it with the other ruleset's line."""
    return {"label": label, "value": value, "param": param, "recorded": recorded, "key": key or label}


def _hand_text(mask: int, strain: int) -> str:
    """Cards of a hand grouped by suit, trump first, strongest first."""
    suits = list(range(4))
    if strain < 4:
        suits = [strain] + [s for s in suits if s != strain]
    parts = []
    for s in suits:
        cs = [c for c in cards_of(mask) if c // 8 == s]
        trump = strain == ALL_TRUMP or s == strain
        order = TRUMP_ORDER if trump else PLAIN_ORDER
        cs.sort(key=lambda c: -order[c % 8])
        if cs:
            parts.append(" ".join(card_str(c) for c in cs))
    return "  ".join(parts) or "-"


def explain(hand: dict[str, Any], rules: Ruleset, dd: dict[str, Any] | None = None,
            score_row: dict[str, Any] | None = None) -> dict[str, Any]:
    """The breakdown of one hand row (a dict with the ``hands`` columns) under ``rules``; ``dd``: the hand's
    ``dd_hands`` row under the same ruleset (``rebelote analyse``), which adds the double-dummy lines: best play's
    points, makeable, par, and after each trick what each card cost its side. ``score_row``: the hand's
    ``score_batch`` row under ``rules`` when the caller scored its hands together (one call per game, not per hand)."""
    sc = score_row
    if sc is None:
        (sc,) = score_batch(pa.Table.from_pylist([hand], schema=schema.schema("hands")), rules).to_pylist()
    players = hand["players"]
    n = hand["n_players"]
    strain = STRAINS.index(hand["strain"]) if hand.get("strain") in STRAINS else -1
    sections: list[dict[str, Any]] = []

    def section(title: str, lines: list[dict[str, Any]]) -> None:
        sections.append({"title": title, "lines": lines})

    K = n_teams(n)   # team = seat % 2 with 2 or 4 players, the seat itself with 3 (each plays for himself)
    P = [f"P{s}" for s in range(n)]   # seat labels used below; the names are in the Table section
    seats = [_line(P[s], f"{players[s]} (team {s % K})" + (", dealer" if s == hand["dealer"] else ""))
             for s in range(n)]
    section("Table", seats)
    if hand.get("errors"):   # what the reader noted, e.g. a hand kept by --on-error lenient at a lower level
        section("Record", [_line("completeness", hand.get("completeness") or "")]
                + [_line("note", e) for e in hand["errors"]])
    if hand.get("penalties"):   # recorded penalty events: each costs the offender's side its [penalties] value
        section("Penalties", [_line(f"{P[p['seat']]} (team {p['seat'] % K})",
                                    f"{p['kind']}: -{rules['penalties.' + p['kind']]}", f"penalties.{p['kind']}")
                              for p in hand["penalties"]]
                + [_line("penalty points", _pts(sc["penalty_points"]) + " (in the game totals, not the hand score)",
                         "penalties.*")])
    if hand.get("claim") is not None:   # declaring out (seed 001: saying one has finished), judged by the game pass
        c = hand["claim"]
        how = sc["claim_note"] or (f"points at the claim {_pts(sc['claim_points'])} (cards of the tricks won so far, "
                                   "declarations and belote once a trick with a card of value is won); the game "
                                   "pass adds the totals before the hand and compares with the target"
                                   if sc["claim_points"] is not None else "")
        section("Claim", [_line(f"{P[c['seat']]} declares out", f"after trick {c['trick']}: {how}",
                                "game.claims / game.target / game.target_strict")])
    if hand.get("initial_hands"):
        section("Hands", [_line(P[s], _hand_text(m, strain if strain >= 0 else NO_TRUMP))
                          for s, m in enumerate(hand["initial_hands"])])
    if hand.get("auction"):
        section("Auction", [_line("calls", " ".join(f"{P[a['seat']]}:{a['call']}" for a in hand["auction"]))])
    team_only = hand.get("taker") is None and hand.get("taker_team") is not None   # the source names the team only
    if hand.get("taker") is None and not team_only:
        if hand.get("completeness") == "deal":
            section("Contract", [_line("not recorded", "the record holds the deal only (completeness deal)")])
        elif hand.get("completeness") == "summary" and len(hand.get("recorded_score") or []) == K:
            # a round nobody took whose source recorded a score (carg's misère, misdeal, foul play): it counts
            section("Contract", [_line("passed out", f"no contract: counts {' - '.join(map(str, hand['recorded_score']))}"
                                       " as recorded (a summary hand: its recorded score counts in the game)",
                                       "auction.style")])
        elif sc["status"] == "unscorable":      # nobody took, but the ruleset cannot score it (another player count)
            section("Contract", [_line("passed out", "no contract")])
            section("Result", [_line(sc["status"], sc["reason"])])
        else:
            section("Contract", [_line("passed out", "no contract: 0 - 0", "auction.style")])
        return {"ruleset": rules.name, "game_id": hand["game_id"], "hand_no": hand["hand_no"], "sections": sections,
                "score": sc["hand_score"], "status": sc["status"], "reason": sc["reason"]}
    contract = hand["strain"] + (f" {hand['bid']}" if hand.get("bid") else "") + (" capot" if hand.get("capot_bid") else "")
    contract += {0: "", 1: " coinched", 2: " surcoinched"}[hand.get("coinche") or 0]
    taker = (f"team {hand['taker_team']} (the record names the team, not the seat)" if team_only
             else f"{P[hand['taker']]} (team {hand['taker'] % K})")
    section("Contract", [_line("taker", taker),
                         _line("contract", contract, "double.coinche / double.surcoinche" if hand.get("coinche") else None)])
    if sc["status"] != "scored":
        section("Result", [_line(sc["status"], sc["reason"])])
        return {"ruleset": rules.name, "game_id": hand["game_id"], "hand_no": hand["hand_no"], "sections": sections,
                "score": sc["hand_score"], "status": sc["status"], "reason": sc["reason"]}

    tables = build(rules)
    if hand.get("plays"):
        plays = np.array([hand["plays"]], dtype=np.int8)
        seats_arr = np.array([hand["play_seats"]], dtype=np.int8)
        pr = play.play_hands(plays, seats_arr, np.array([hand["initial_hands"]], dtype=np.uint32),
                             np.array([hand["dealer"]], dtype=np.int8), np.array([strain], dtype=np.int8),
                             tables, play.PlayRules.of(rules), n)
        lines = []
        for t in range(len(hand["plays"]) // n):
            cards = " ".join(f"{P[hand['play_seats'][t * n + k]]}:{card_str(hand['plays'][t * n + k])}"
                             for k in range(n))
            w = int(pr.trick_winners[0, t])
            lines.append(_line(f"trick {t + 1}", f"{cards} -> {P[w]} +{int(pr.trick_points[0, t])}",
                               "cards.trump / cards.plain" if strain < 4 else
                               ("cards.no_trump" if strain == NO_TRUMP else "cards.all_trump")))
            if dd is not None and len(dd["play_cost"]) == len(hand["plays"]):
                costs = [(hand["play_seats"][t * n + k], dd["play_cost"][t * n + k]) for k in range(n)]
                lost = [f"{P[s]} -{c}" for s, c in costs if c]
                lines.append(_line("  double-dummy", "every card optimal" if not lost else
                                   "card points lost against best play: " + ", ".join(lost), "play.*", key=f"dd {t}"))
        section("Tricks (card points)", lines)
        if dd is not None:
            team = dd["taker_team"]
            by = ", ".join(f"{s} {v}" for s, v in zip(STRAINS, dd["dd_by_strain"]) if v is not None)
            section("Double-dummy (every hand visible, best play)", [
                _line("taker's side", f"{dd['dd_points']} card points in {dd['strain']} with best play, "
                      f"{dd['taker_points']} in the play recorded", "cards.*"),
                _line("makeable", "litige" if dd["makeable"] is None else "yes" if dd["makeable"] else "no",
                      "contract.*"),
                _line("par", f"{dd['par_strain']} (team {team}'s best-play points by strain: {by})", "auction.strains")])
        if not sc["legal"]:
            section("Legality", [_line(f"trick {sc['illegal_trick']}",
                                       f"{P[sc['illegal_seat']]} played {card_str(sc['illegal_card'])}: "
                                       f"breaks {sc['illegal_rule']}", f"play.{sc['illegal_rule']}")]
                    + ([_line("revoke award", f"{sc['illegal_plays']} illegal play(s); the offender's opponents score "
                              f"{rules['play.revoke_penalty']} "
                              + ("for each" if rules["play.revoke_count"] == "each" else "once, for the first"),
                              "play.revoke_penalty / play.revoke_count")] if rules["play.revoke_penalty"] else []))
        else:
            section("Legality", [_line("every play", "legal", "play.*")])
    else:
        section("Tricks (card points)", [_line("tricks taken", " | ".join(
            f"{P[s]}: {' '.join(card_str(c) for c in cards_of(m))}" for s, m in enumerate(hand["tricks_taken"])),
            "cards.*")])
    lt = sc["last_trick_team"]
    cap = sc["capot_team"]
    bonus_param = "cards.capot_last_trick" if cap is not None else "cards.last_trick"
    capot_text = "none" if cap is None else f"team {cap} took every trick"
    took = set(sc["trick_winners"] or [])
    if K > 2 and cap is None and len(took) == K - 1 and rules["cards.capot_split_each"]:
        # 3 players, one of them without a trick (ADPOKER3): a split capot bonus instead of the last trick
        (none,) = set(range(K)) - {s_ % K for s_ in took}
        capot_text = (f"P{none} took no trick: {rules['cards.capot_split_each']} to each other player, "
                      "no last-trick bonus")
        bonus_param = "cards.capot_split_each"
    section("Card points", [
        _line("last trick", f"team {lt}", bonus_param),
        _line("capot", capot_text, "cards.capot_last_trick / cards.capot_bonus"
              + (" / cards.capot_split_each" if K > 2 else "")),
        _line("card points", _pts(sc["card_points"]),
              "cards.*_scale" if strain >= 4 else ("cards.capot_split_each" if K > 2 else None),
              hand.get("recorded_card_points")),
    ])
    dl = []
    entries = []   # (seat, kind, top rank, suit, length) that the ruleset counts, for the contest line
    count = rules["declarations.count"]
    # as the engine decides (classify.classify, from_ann): "announced" settles the recorded list even when the
    # record holds none (nothing scores), "announced_else_held" only when it holds one
    use_announced = count == "announced" or (count == "announced_else_held" and hand.get("announced") is not None)
    for a in hand.get("announced") or []:
        dl.append(_line(f"announced by {P[a['seat']]}",
                        f"{a['kind']} {RANKS[a['rank']] if a['rank'] is not None else ''}"
                        f"{SUITS[a['suit']] if a['suit'] is not None else ''}",
                        "declarations.count" + ("" if use_announced else " (held declarations count instead)")))
        if use_announced:
            entries.append((a["seat"], a["kind"], a["rank"] or 0, a["suit"], a["length"] or 3))
    if hand.get("initial_hands") and rules["declarations.enabled"]:
        for s_, m in enumerate(hand["initial_hands"]):
            for kind, top, suit, length, pts in decl.list_held(m, strain, rules):
                dl.append(_line(f"held by {P[s_]}", f"{kind} to {RANKS[top]}{SUITS[suit] if suit is not None else ''}"
                                f" ({pts})", f"declarations.{kind}"))
                if not use_announced:
                    entries.append((s_, kind, top, suit, length))
    if rules["declarations.enabled"] and entries:
        flags = contest.resolve_list(entries, strain, rules, n, hand["dealer"])
        won = sorted({f"team {e[0] % K}" for e, f in zip(entries, flags) if f and e[1] != "belote"})
        firsts = sorted({s for _, s in contest.contest_outcomes(entries, strain, rules, n, hand["dealer"]).values()
                         if s is not None})
        broken = "".join(f" (equal best: {P[s]} announces first)" for s in firsts)
        dl.append(_line("contest", (", ".join(won) + " scores its declarations" + broken) if won else
                        "equal best declarations: nobody scores", "declarations.contest / declarations.tie / "
                        "declarations.ranking / declarations.trump_breaks_ties / declarations.carre_order"))
        # a capot moves or cancels the capoted side's declarations (declarations.on_capot, rules.md R24): say so,
        # or the contest's winner above and the points scored below disagree with no parameter named
        on_capot = rules["declarations.on_capot"]
        capoted = sorted({e[0] % K for e, f in zip(entries, flags) if f and e[1] != "belote"} - {cap})
        if cap is not None and capoted and on_capot != "keep":
            fate = f"go to team {cap}" if on_capot == "to_capot_team" else "are lost"
            dl.append(_line("capot", ", ".join(f"team {t}" for t in capoted) + f"'s declarations {fate}",
                            "declarations.on_capot"))
    active = bool(rules["declarations.enabled"])
    dl.append(_line("declarations scored", _pts(sc["declaration_points"])
                    + ("" if active else " (declarations off)"),
                    "declarations.enabled / declarations.contest / declarations.tie"))
    dl.append(_line("belote-rebelote", _pts(sc["belote_points"]),
                    "belote.enabled / belote.value / belote.all_trump"))
    section("Declarations and belote", dl)
    taker_team = sc["taker_team"]
    cp = sc["contract_points"]
    test = []
    if rules["contract.made_vs_bid"] == "ge" or rules["contract.made_min_points"]:
        bid = (hand.get("bid") or 0) if rules["contract.made_vs_bid"] == "ge" else 0
        target = "capot" if hand.get("capot_bid") else f"{max(bid, int(rules['contract.made_min_points']))}"
        test.append(_line("taker's total vs bid", f"{cp[taker_team]} vs {target}",
                          "contract.made_vs_bid / contract.made_min_points / contract.made_counts_*",
                          key="made test"))
    if rules["contract.made_vs_defence"] != "none" and K == 2:
        test.append(_line("taker's total vs defence", f"{cp[taker_team]} vs {cp[1 - taker_team]}",
                          "contract.made_vs_defence / contract.made_counts_*", key="made test"))
    elif rules["contract.made_vs_defence"] != "none":
        others = [v for t, v in enumerate(cp) if t != taker_team]
        each = rules["contract.solo_made"] == "each"
        test.append(_line("taker's total vs " + ("the better opponent" if each else "the opponents together"),
                          f"{cp[taker_team]} vs {max(others) if each else sum(others)}",
                          "contract.solo_made / contract.made_vs_defence / contract.made_counts_*",
                          key="made test"))
    outcome = "litige (tie: points held)" if sc["litige"] else ("made" if sc["contract_made"] else "failed")
    test.append(_line("contract", outcome, "contract.tie" if sc["litige"] else None))
    section("Contract result", test)
    res = [_line("multiplier", {0: "x1", 1: f"x{rules['double.coinche']}", 2: f"x{rules['double.surcoinche']}"}[hand.get("coinche") or 0],
                 "double.scope / double.coinche / double.surcoinche"),
           _line("rounding", rules["rounding.mode"], "rounding.mode")]
    if sc["held_points"]:
        res.append(_line("held over", f"{sc['held_points']} to {_LITIGE_TO[rules['game.litige_to']]}", "game.litige_to"))
    recorded = hand.get("recorded_score")
    if recorded is None and hand.get("recorded_margin") is not None and K == 2:
        recorded = f"margin {hand['recorded_margin']:+d}, ours {sc['hand_score'][0] - sc['hand_score'][1]:+d}"
    res.append(_line("hand score", _pts(sc["hand_score"]),
                     "contract.* / double.* / rounding.mode" + (" / contract.solo_fail" if K > 2 else ""), recorded))
    section("Score (game points)", res)
    return {"ruleset": rules.name, "game_id": hand["game_id"], "hand_no": hand["hand_no"], "sections": sections,
            "score": sc["hand_score"], "status": sc["status"], "reason": sc["reason"]}


def _text(ln: dict[str, Any] | None) -> str:
    """A line's label, value and recorded value, without its parameter (what the ``*`` mark compares)."""
    if ln is None:
        return ""
    txt = f"{ln['label']}: {ln['value']}"
    if ln.get("recorded") is not None:
        txt += f" (recorded {ln['recorded']})"
    return txt


def _cell(ln: dict[str, Any] | None) -> str:
    """A line as printed: its text, then its own parameter(s) in brackets."""
    if ln is None:
        return ""
    return _text(ln) + (f"   [{ln['param']}]" if ln.get("param") else "")


Row = tuple[str, list["dict[str, Any] | None"], bool]


def pair_rows(breakdowns: list[dict[str, Any]]) -> list[tuple[str, list[Row]]]:
    """The side-by-side layout of one or two breakdowns: per section title (in the order they first appear),
    rows ``(key, [line of each breakdown or None], differs)``.

    Lines are paired by ``key`` and rank: the n-th line with a key in a section faces the n-th line with the
    same key on the other side (so the made test under the bid faces the made test under the defence). A line
    only one side has faces None and stays where that side has it, so the rest does not shift. ``differs`` is
    True when the two sides' texts (label, value, recorded value; not the parameters) are not the same, a gap
    included; always False for one breakdown."""
    titles: list[str] = []
    for b in breakdowns:
        for sec in b["sections"]:
            if sec["title"] not in titles:
                titles.append(sec["title"])
    out: list[tuple[str, list[Row]]] = []
    for title in titles:
        secs = [next((x for x in b["sections"] if x["title"] == title), {"lines": []}) for b in breakdowns]
        keyed: list[dict[tuple[str, int], dict[str, Any]]] = []
        for sec in secs:
            seen: dict[str, int] = {}
            lines = {}
            for ln in sec["lines"]:
                key = ln.get("key") or ln["label"]
                k = seen.get(key, 0)
                seen[key] = k + 1
                lines[(key, k)] = ln
            keyed.append(lines)
        order: list[tuple[str, int]] = []
        for lines in keyed:        # merge the sides' line orders: a line only one side has stays in place
            at = 0
            for key in lines:
                if key in order:
                    at = order.index(key) + 1
                else:
                    order.insert(at, key)
                    at += 1
        rows: list[Row] = []
        for key in order:
            lns = [lines.get(key) for lines in keyed]
            rows.append((key[0], lns, len(lns) > 1 and len({_text(ln) for ln in lns}) > 1))
        out.append((title, rows))
    return out


def mark_differences(breakdowns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Set ``"differs"`` on every line of the breakdowns (in place, and returned): whether the line faces a
    line that says something else, or nothing, in the other ruleset's breakdown (:func:`pair_rows`). With one
    breakdown every line gets False."""
    for _, rows in pair_rows(breakdowns):
        for _, lns, differs in rows:
            for ln in lns:
                if ln is not None:
                    ln["differs"] = differs
    return breakdowns


def render(breakdowns: list[dict[str, Any]], width: int = 80, columns: int | None = None) -> str:
    """Plain text of one breakdown, or of two side by side (:func:`pair_rows`): each line is followed by the
    ruleset parameter(s) behind it, in brackets, in its own column; lines that differ are marked ``*``.
    The left column is padded to its longest line, at most ``width`` characters; a longer left-hand line puts
    its parameters on the next lines, indented, so that the right-hand side stays in its column (a text alone
    longer than ``width`` pushes it further, three spaces after it).

    ``columns``: the terminal's width (None: no limit). Two breakdowns that do not fit side by side are
    stacked instead (:func:`_stacked`), and a line longer than ``columns`` puts its parameters on the next
    line."""
    out: list[str] = [f"game {breakdowns[0]['game_id']} hand {breakdowns[0]['hand_no']}"]
    layout = pair_rows(breakdowns)
    if len(breakdowns) == 1:
        w = 0
    else:
        w = min(width, max((len(_cell(lns[0])) for _, rows in layout for _, lns, _ in rows), default=0))
    if len(breakdowns) == 2 and columns is not None and any(
            _side_by_side_width(lns, w) > columns for _, rows in layout for _, lns, _ in rows):
        return "\n".join(out + _stacked(breakdowns, layout, columns))
    out.append("  " + "   ".join(f"[{b['ruleset']}]".ljust(w) for b in breakdowns).rstrip())
    for title, rows in layout:
        out.append(f"\n{title}")
        for _, lns, differs in rows:
            if len(lns) == 1:
                out += _fitted(f"{'*' if differs else ' '} ", lns[0], columns)
                continue
            left, right = lns
            mark = "*" if differs else " "
            if _wraps(left, right, w):
                out.append(f"{mark} {_text(left).ljust(w)}   {_cell(right)}".rstrip())
                out += ["  " + x for x in textwrap.wrap(f"[{left['param']}]", max(w, 20), initial_indent="    ",
                                                         subsequent_indent="    ", break_on_hyphens=False)]
                continue
            out.append(f"{mark} {_cell(left).ljust(w)}   {_cell(right)}".rstrip())
    return "\n".join(out)


def _wraps(left: dict[str, Any] | None, right: dict[str, Any] | None, w: int) -> bool:
    """Whether a side-by-side row puts its left-hand parameters on the next line (:func:`render`)."""
    return (right is not None and left is not None and len(_cell(left)) > w and len(_text(left)) <= w
            and bool(left.get("param")))


def _side_by_side_width(lns: list, w: int) -> int:
    """The widest line a row of ``lns`` (one or two lines) takes side by side, left column ``w`` wide."""
    if len(lns) == 1:
        return 2 + len(_cell(lns[0]))
    left, right = lns
    if _wraps(left, right, w):
        return max(2 + w + 3 + len(_cell(right)), 6 + min(len(f"[{left['param']}]"), max(w, 20)))
    return 2 + max(len(_cell(left)), w) + 3 + len(_cell(right))


def _fitted(lead: str, ln: dict[str, Any] | None, columns: int | None) -> list[str]:
    """One line of a breakdown after ``lead``, or two when it is longer than ``columns``: the text, then its
    parameters on their own line, indented."""
    cell = _cell(ln)
    if columns is None or len(lead + cell) <= columns or not (ln and ln.get("param")):
        return [(lead + cell).rstrip()]
    indent = " " * (len(lead) + 4)
    return [(lead + _text(ln)).rstrip(), *textwrap.wrap(f"[{ln['param']}]", columns, initial_indent=indent,
                                                         subsequent_indent=indent, break_on_hyphens=False)]


def _stacked(breakdowns: list[dict[str, Any]], layout: list[tuple[str, list[Row]]], columns: int) -> list[str]:
    """Two breakdowns one above the other, for a terminal too narrow to show them side by side: a line both
    rulesets say alike once, a line that differs once per ruleset (``* A`` then ``  B``, A and B named at the
    top), a line only one side has facing ``(nothing)``."""
    out = [f"  A = {breakdowns[0]['ruleset']}, B = {breakdowns[1]['ruleset']}; "
           "a line that differs is shown under each, marked *"]
    for title, rows in layout:
        out.append(f"\n{title}")
        for _, lns, differs in rows:
            if not differs:
                out += _fitted("  ", lns[0], columns)
                continue
            for mark, tag, ln in (("*", "A", lns[0]), (" ", "B", lns[1])):
                if ln is None:
                    out.append(f"{mark} {tag} (nothing)")
                else:
                    out += _fitted(f"{mark} {tag} ", ln, columns)
    return out


def dd_rows(lake, hand_keys: list[str], names: list[str]) -> dict[tuple[str, str], dict]:
    """(ruleset, hand_key) -> the ``dd_hands`` row of those hands under those rulesets, where analysed."""
    import pyarrow.compute as pc

    from pipeline.storage import lake as lakemod
    if not lakemod.has_table(lake, "dd_hands"):
        return {}
    t = lakemod.read(lake, "dd_hands", filter=pc.field("hand_key").isin(hand_keys) & pc.field("ruleset").isin(names))
    return {(r["ruleset"], r["hand_key"]): r for r in t.to_pylist()}


def game_hands(lake, game: str, hand_no: int | None = None) -> list[dict[str, Any]]:
    """Hand rows of a game (by game id, or by the source's own game id), in order; one hand with ``hand_no``.
    Raises LookupError naming what was not found and where to look: the closest game ids and `rebelote games`
    for a game, the game's hand numbers for a hand."""
    import pyarrow.compute as pc

    from pipeline.storage import lake as lakemod
    lakemod.require_current(lake)     # LakeVersionError for a lake of another layout version
    rows = lakemod.read(lake, "hands", filter=pc.field("game_id") == game).to_pylist()
    if not rows:
        rows = lakemod.read(lake, "hands", filter=pc.field("source_game_id") == game).to_pylist()
        ids = sorted({r["game_id"] for r in rows})
        if len(ids) > 1:
            raise LookupError(f"{game!r} names several games ({', '.join(ids)}); give the full game id")
    if not rows:
        raise LookupError(_no_game(lake, game))
    rows.sort(key=lambda r: r["hand_no"])
    if hand_no is not None:
        numbers, gid = [r["hand_no"] for r in rows], rows[0]["game_id"]
        rows = [r for r in rows if r["hand_no"] == hand_no]
        if not rows:
            have = (f"{numbers[0]}..{numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1))
                    else ", ".join(map(str, numbers)))
            raise LookupError(f"game {gid!r} has no hand {hand_no}: its hands are {have}")
    return rows


def _no_game(lake, game: str) -> str:
    """Why ``game`` is not shown, and where to look: the closest game ids of the lake (difflib, on the game
    ids and the sources' own ids) and the command that lists its games."""
    import difflib

    from pipeline.storage import lake as lakemod
    games = (lakemod.read(lake, "games", columns=["game_id", "source_game_id"]).to_pylist()
             if lakemod.has_table(lake, "games") else [])
    by_name: dict[str, str] = {}
    for g in games:
        by_name.setdefault(g["game_id"], g["game_id"])
        by_name.setdefault(g["source_game_id"], g["game_id"])
    # the names at least 0.6 alike (difflib's ratio, as get_close_matches), most alike first, then by name
    alike = sorted((-difflib.SequenceMatcher(None, game, n).ratio(), by_name[n]) for n in by_name)
    close = list(dict.fromkeys(gid for r, gid in alike if r <= -0.6))[:3]
    listing = f"`rebelote games --lake {lake}` lists the {count(len(games), 'game')}"
    if close:
        return f"no game {game!r} in the lake {lake}; the closest game ids: {', '.join(close)} ({listing})"
    return f"no game {game!r} in the lake {lake} ({listing})"
