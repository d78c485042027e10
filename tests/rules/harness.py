"""Rule-test harness: constructed hands scored end to end under a ruleset built in memory.

Every rule test (``tests/rules/test_*.py``) builds a ruleset from a parent and a few overrides, builds one or a
few hands by hand, and scores them through the real pipeline: native record -> hands row
(:func:`pipeline.formats.native.game_to_rows`) -> :func:`pipeline.rescore.score_batch` (-> :func:`pipeline.rescore.game_pass`
for game-level parameters). Nothing here reads ``../shared``.

API (cards are two-letter strings as in the native format: 7C 8C 9C TC JC QC KC AC, suits C D H S):

    ruleset(parent="base", overrides=None) -> Ruleset        # a house file: extends = parent + overrides
    deal(*seats: str) -> list[list[str]]                    # initial hands, one "JH 9H ..." string per seat
    rest(*taken: str) -> str                                # the cards of the 32-card pack not in `taken`
    suit(s: str) -> str                                     # the eight cards of a suit: suit("H")
    hand(hands, won=None, last=0, *, plays=None, strain="H", taker=0, dealer=3, bid=None,
         capot_bid=False, coinche=0, announced=None) -> dict  # one native hand (tricks taken, or full play)
    score(R, *hands, n_players=None) -> list[dict]          # the scores rows of one game of these hands
    score1(R, hand) -> dict                                 # the scores row of one hand
    pad(hands, trick, dealer=3) -> list[(seat, card)]       # a full play: trick 1 as given, then the rest
    fault(R, hands, trick, strain="H", dealer=3) -> (seat, card, rule) | None   # first illegal play of trick 1
    game(R, *hands, target=None) -> dict                    # the game_scores row of one game of these hands

``STD4`` is a 4-player deal with no declaration and no belote in any strain (each seat holds two cards of each
suit, four ranks apart; K and Q of a suit always in different seats), for tests where the deal does not matter.

``hand(..., won=...)`` records the hand as "tricks_taken": ``won[s]`` is the cards seat s took in tricks (a
string; missing seats took nothing) and ``last`` the seat that took the last trick. Scores then depend only on
which cards each side took, which is what card-point and contract tests need, without constructing a legal play
of 32 cards. ``hand(..., plays=...)`` records a full play instead (``[(seat, card), ...]``).

Each test names the parameters it pins with ``@pytest.mark.covers("section.key", ...)`` (a seed ruleset's own
value: ``"RULESET:section.key"``); ``test_coverage.py`` fails when a parameter has no such test. The pattern of
a test: the hand-computed value under the ruleset, AND the hand-computed different value with that one
parameter changed through an override, so that the test fails if the engine ignores the parameter.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipeline import rules as rulesmod

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.rescore import game_pass, score_batch

SUITS = "CDHS"
RANKS = "789TJQKA"
PACK = [r + s for s in SUITS for r in RANKS]

# seat s holds, in suit u, the ranks r with r % 4 == (s + u) % 4: no run of three, no four of a rank, no K+Q
STD4 = [["7C", "JC", "8D", "QD", "9H", "KH", "TS", "AS"],
        ["8C", "QC", "9D", "KD", "TH", "AH", "7S", "JS"],
        ["9C", "KC", "TD", "AD", "7H", "JH", "8S", "QS"],
        ["TC", "AC", "7D", "JD", "8H", "QH", "9S", "KS"]]

# Card splits as ``hand(..., **SPLIT)`` keywords, hearts trump, base card values (trump 62, a plain suit 30,
# last trick 10); seat 0 (team 0) and seat 1 (team 1) take the cards:
_HC = "7H 8H 9H TH JH QH KH AH 7C 8C 9C TC JC QC KC AC"
#   102-60: team 0 hearts + clubs 62 + 30 + last trick 10; team 1 diamonds + spades 60
SPLIT_102_60 = {"won": [_HC, "7D 8D 9D TD JD QD KD AD 7S 8S 9S TS JS QS KS AS"], "last": 0}
#   30-132: team 0 the clubs 30; team 1 hearts 62 + diamonds 30 + spades 30 + last trick 10
SPLIT_30_132 = {"won": [_HC[24:], _HC[:23] + " 7D 8D 9D TD JD QD KD AD 7S 8S 9S TS JS QS KS AS"], "last": 1}
#   81-81: team 0 hearts 62 + 10C JC QC KC 19; team 1 AC 11 + 7C 8C 9C 0 + diamonds, spades 60 + last trick 10
SPLIT_81_81 = {"won": [_HC[:23] + " TC JC QC KC", "7C 8C 9C AC 7D 8D 9D TD JD QD KD AD 7S 8S 9S TS JS QS KS AS"],
               "last": 1}
#   82-80: team 0 hearts 62 + AC JC QC KC 20; team 1 10C 10 + 7C 8C 9C + diamonds, spades 60 + last trick 10
SPLIT_82_80 = {"won": [_HC[:23] + " JC QC KC AC", "7C 8C 9C TC 7D 8D 9D TD JD QD KD AD 7S 8S 9S TS JS QS KS AS"],
               "last": 1}
#   85-77: team 0 hearts 62 + AC TC JC 23; team 1 KC QC 7 + 7C 8C 9C + diamonds, spades 60 + last trick 10
SPLIT_85_77 = {"won": [_HC[:23] + " TC JC AC", "7C 8C 9C QC KC 7D 8D 9D TD JD QD KD AD 7S 8S 9S TS JS QS KS AS"],
               "last": 1}
#   capot: one team takes all 32 cards: 152 + 100 for the last trick on a capot = 252
CAPOT_0 = {"won": [" ".join(PACK)], "last": 0}
CAPOT_1 = {"won": ["", " ".join(PACK)], "last": 1}

_DIR = Path(tempfile.mkdtemp(prefix="rebelote-ruletests-"))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):     # a rank table (partial tables are merged over the parent's by the loader)
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


@functools.cache
def _ruleset(parent: str, frozen: str) -> rulesmod.Ruleset:
    overrides = json.loads(frozen)
    digest = hashlib.sha1(f"{parent}|{frozen}".encode()).hexdigest()[:12]
    name = f"ruletest-{digest}"      # a house file's name must not be a shipped one
    lines = [f'name = "{name}"', f"extends = {json.dumps(parent)}"]
    sections: dict[str, dict[str, Any]] = {}
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        sections.setdefault(section, {})[key] = value
    for section, body in sections.items():
        lines.append(f"[{section}]")
        lines.extend(f"{key} = {_toml_value(v)}" for key, v in body.items())
    path = _DIR / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rulesmod.load(path)


def ruleset(parent: str = "base", overrides: dict[str, Any] | None = None) -> rulesmod.Ruleset:
    """The ruleset ``parent`` (a shipped name) with ``overrides`` ({"section.key": value}; a rank table may be
    given in part, e.g. {"cards.trump": {"9": 0}}), loaded from a temporary house file through
    :func:`pipeline.rules.load` (so the overrides are validated as a user's file would be). Cached."""
    return _ruleset(parent, json.dumps(overrides or {}, sort_keys=True))


def _cards(text: str) -> list[str]:
    return text.split()


def deal(*seats: str) -> list[list[str]]:
    """Initial hands, one string of cards per seat; fails when a card is dealt twice or is not a card."""
    hands = [_cards(s) for s in seats]
    flat = [c for h in hands for c in h]
    assert all(c in PACK for c in flat), [c for c in flat if c not in PACK]
    assert len(flat) == len(set(flat)), "a card is dealt twice"
    return hands


def suit(s: str) -> str:
    """The eight cards of suit ``s`` (C D H S), 7 to ace, as one string."""
    return " ".join(r + s for r in RANKS)


def rest(*taken: str) -> str:
    """The cards of the 32-card pack that are not in any of ``taken``, as one string."""
    used = {c for t in taken for c in _cards(t)}
    return " ".join(c for c in PACK if c not in used)


def hand(hands: list[list[str]], won: list[str] | tuple[str, ...] | None = None, last: int = 0, *,
         plays: list[tuple[int, str]] | None = None, strain: str = "H", taker: int | None = 0, dealer: int = 3,
         bid: int | None = None, capot_bid: bool = False, coinche: int = 0,
         announced: list[dict] | None = None) -> dict:
    """One native hand: the initial ``hands``, and either the cards each seat took (``won``, one string per
    seat; missing seats took nothing; ``last``: the seat that took the last trick) or the full ``plays``.
    ``taker`` None: passed out. ``announced``: the record's announcements (native objects, e.g.
    {"seat": 0, "kind": "tierce", "cards": ["9H", "TH", "JH"]})."""
    contract = None if taker is None else {"taker": taker, "strain": strain, "bid": bid, "capot_bid": capot_bid,
                                           "coinche": coinche}
    h: dict[str, Any] = {"dealer": dealer, "hands": [list(x) for x in hands], "auction": [], "contract": contract}
    if plays is not None:
        h |= {"completeness": "full_play", "plays": [[s, c] for s, c in plays]}
    else:
        P = len(hands)
        won = list(won or [])
        won += [""] * (P - len(won))
        h |= {"completeness": "tricks_taken", "plays": None, "tricks_taken": [_cards(w) for w in won],
              "last_trick_seat": last}
    if announced is not None:
        h["announced"] = announced
    return h


def _table(hands: tuple[dict, ...], n_players: int, target: int | None = None) -> pa.Table:
    obj = {"format": "rebelote", "version": 1, "source": "ruletest", "source_game_id": "g1", "variant": "belote",
           "n_players": n_players, "players": [f"P{i}" for i in range(n_players)], "target": target,
           "ruleset_hint": None, "hands": [dict(h, hand_no=i + 1) for i, h in enumerate(hands)]}
    _, rows = native.game_to_rows(obj, "rebelote", "<ruletest>", None)
    return pa.Table.from_pylist(rows, schema=schema.schema("hands"))


def score(R: rulesmod.Ruleset, *hands: dict, n_players: int | None = None) -> list[dict]:
    """The ``scores`` rows (dicts) of one game made of ``hands`` (numbered 1, 2, ...), scored under ``R``.
    ``n_players``: the record's seats (default: the number of initial hands of the first hand)."""
    P = n_players or len(hands[0]["hands"])
    return score_batch(_table(hands, P), R).to_pylist()


def score1(R: rulesmod.Ruleset, h: dict, n_players: int | None = None) -> dict:
    """The ``scores`` row of the one hand ``h``. Useful columns: status, reason, legal, illegal_seat,
    illegal_card, illegal_rule, card_points, declaration_points, declarations, belote_points, contract_points,
    contract_made, litige, hand_score, held_points (per-team lists: team = seat % 2, or seat with 3 players)."""
    return score(R, h, n_players=n_players)[0]


# STD4 with the king and queen of hearts both in seat 0 (team 0): seat 0's 9H and seat 3's QH swapped
BEL_T0 = deal("7C JC 8D QD QH KH TS AS", "8C QC 9D KD TH AH 7S JS", "9C KC TD AD 7H JH 8S QS",
              "TC AC 7D JD 8H 9H 9S KS")
# ... both in seat 1 (team 1): KH from seat 0 and QH from seat 3 to seat 1, which gives them TH and AH
BEL_T1 = deal("7C JC 8D QD 9H TH TS AS", "8C QC 9D KD KH QH 7S JS", "9C KC TD AD 7H JH 8S QS",
              "TC AC 7D JD 8H AH 9S KS")


def hand_score(name: str, h: dict, overrides: dict[str, Any] | None = None) -> list[int]:
    """The ``hand_score`` of the one hand ``h`` under ruleset ``name`` (with ``overrides``, as :func:`ruleset`)."""
    return score1(ruleset(name, overrides), h)["hand_score"]


def game(R: rulesmod.Ruleset, *hands: dict, target: int | None = None) -> dict:
    """The ``game_scores`` row of one game of ``hands`` under ``R``: totals, totals_at_end, ended_at_hand,
    winner, unresolved_held. ``target``: the game's recorded target (what the lake's game pass hands
    :func:`game_pass` for ``game.target_from_record``)."""
    P = len(hands[0]["hands"])
    targets = None if target is None else {"ruletest:g1": target}
    return game_pass(score_batch(_table(hands, P, target), R), R, targets).to_pylist()[0]


def pad(hands: list[list[str]], trick: list[str], dealer: int = 3) -> list[tuple[int, str]]:
    """A full play record: trick 1 as ``trick`` (cards in playing order from the seat on the dealer's left), then
    each seat's remaining cards in the order of its hand, seats 0, 1, 2... in every later trick (the padding
    may break play rules, and is not played in turn after a trick another seat won: only trick 1 is meant)."""
    P = len(hands)
    first = (dealer + 1) % P
    plays = [((first + k) % P, c) for k, c in enumerate(trick)]
    assert len(trick) == P and all(c in hands[s] for s, c in plays), "trick 1: each seat plays a card it holds"
    left = [[c for c in hands[s] if c not in trick] for s in range(P)]
    for t in range(len(hands[0]) - 1):
        plays += [(s, left[s][t]) for s in range(P)]
    return plays


def fault(R: rulesmod.Ruleset, hands: list[list[str]], trick: list[str], strain: str = "H",
          dealer: int = 3) -> tuple[int, str, str] | None:
    """The first illegal play of the first trick, played as ``trick`` (cards in playing order from the seat on
    the dealer's left): (seat, card, rule) with rule the name of the broken obligation (``illegal_rule``:
    "must_undertrump", "follow_suit"...), or None when trick 1 is legal under ``R``.

    The rest of the hand is padded (each seat's remaining cards, seats in order 0, 1, 2...) so the record is
    complete; only faults in trick 1 are reported (the padding may break rules after it)."""
    row = score1(R, hand(hands, plays=pad(hands, trick, dealer), strain=strain, dealer=dealer))
    assert row["status"] == "scored", row["reason"]
    if row["legal"] or row["illegal_trick"] != 1:
        return None
    card = PACK[row["illegal_card"]]
    return row["illegal_seat"], card, row["illegal_rule"]
