"""Small builders for the seed-ruleset tests: a contract settled from team totals, the legal cards of one
position, a hand played out end to end, and a house ruleset written to a temporary file.

Cards are written as strings ("JH", "TC"); ``legal`` returns the legal cards as a set of such strings.
"""

from __future__ import annotations

import itertools

import numpy as np

from pipeline import rules
from pipeline.cards import STRAINS, card_str, cards_of, mask_of, parse_card, parse_strain
from pipeline.rescore.contract import settle
from pipeline.rescore.play import PlayRules, legal_cards

_house_names = itertools.count()


def house(tmp_path, parent: str, body: str) -> str:
    """A house ruleset file extending ``parent`` with the TOML ``body`` (sections and keys); returns its path."""
    name = f"house-{next(_house_names)}"
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nextends = "{parent}"\n{body}\n')
    return str(path)


def settle1(ruleset: str, cards, decl=(0, 0), belote=(0, 0), taker=0, bid=0, capot_bid=False, coinche=0, capot=-1,
            strain=0):
    """One contract of two teams from its totals (card points with last trick / capot bonus, declarations after
    the contest, belote): (hand score, made (None for a litige), held points)."""
    r = settle(np.array([cards]), np.array([decl]), np.array([belote]), np.array([taker]), np.array([bid]),
               np.array([capot_bid]), np.array([coinche]), np.array([capot]), rules.load(ruleset),
               strain=np.array([strain]))
    made = None if r.litige[0] else bool(r.made[0])
    return r.hand_score[0].tolist(), made, int(r.held[0])


def legal(ruleset: str, hand: str, led: str, strain: str, win: str, partner_winning: bool) -> set[str]:
    """The legal cards of ``hand`` (space-separated cards) on a trick led in suit ``led`` (C D H S) and won so far
    by card ``win``, in contract ``strain``."""
    m = legal_cards(np.array([mask_of(parse_card(c) for c in hand.split())]), np.array([False]),
                    np.array(["CDHS".index(led)]), np.array([parse_strain(strain)]), np.array([parse_card(win)]),
                    np.array([partner_winning]), PlayRules.of(rules.load(ruleset)))
    return {card_str(c) for c in cards_of(int(m[0]))}


def game(hands: list[dict], n_players: int = 4, target: int = 1000) -> dict:
    """A native-format game of ``hands`` (objects as :func:`hand` makes them)."""
    names = ["Ana", "Ben", "Cat", "Dan"][:n_players]
    return {"format": "rebelote", "version": 1, "source": "seed-test", "source_game_id": "g1", "variant": "belote",
            "n_players": n_players, "players": names, "target": target, "ruleset_hint": None, "hands": hands}


def hand(hands: list[str], tricks: list[str], taker: int, strain: str = "H", *, dealer: int, leader: int = 0,
         hand_no: int = 1, bid: int | None = None, capot_bid: bool = False, coinche: int = 0, announced=None) -> dict:
    """A full-play hand: ``hands`` one string of cards per seat, ``tricks`` one string per trick listing its cards
    in playing order from its leader; each trick's winner must be given implicitly by the play: the seats are
    worked out by following the trick winners, so the caller lists ``leader`` of trick 1 and the cards only."""
    owner = {c: s for s, h in enumerate(hands) for c in h.split()}
    plays = []
    for t in tricks:
        for c in t.split():
            plays.append([owner[c], c])
    return {"hand_no": hand_no, "dealer": dealer, "completeness": "full_play", "hands": [h.split() for h in hands],
            "auction": [], "contract": {"taker": taker, "strain": strain, "bid": bid, "capot_bid": capot_bid,
                                        "coinche": coinche},
            "plays": plays, "announced": announced, "recorded": None}


def strain_index(s: str) -> int:
    return STRAINS.index(s)


def held_points(ruleset: str, seats: list[str], strain: str, dealer: int = 3) -> list[int]:
    """Declaration points each team scores from the cards held (``seats``: one string of cards per seat), after
    the contest, as the engine's held detection settles them."""
    import numpy as np

    from pipeline.rescore import declarations
    R = rules.load(ruleset)
    hands = np.array([[mask_of(parse_card(c) for c in h.split()) for h in seats]], dtype=np.uint32)
    dec = declarations.detect(hands, np.array([parse_strain(strain)], dtype=np.int8), R, declarations.build_tables(R),
                              dealer=np.array([dealer]))
    return dec.team_points[0].tolist()


def rotate(deal: dict, k: int = 1) -> dict:
    """``deal`` (tests/deals.py shape) with every seat moved k places on: seat s's cards go to seat s + k."""
    hands = [None] * 4
    for s, h in enumerate(deal["hands"]):
        hands[(s + k) % 4] = list(h)
    return {"hands": hands, "plays": [[(s + k) % 4, c] for s, c in deal["plays"]]}
