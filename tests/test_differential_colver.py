"""Differential testing against the colver package (PyPI `colver==0.11.1`, belote contrée; optional extra
`pip install -e '.[diff]'`): random deals played through colver's own engine, with random legal calls and
cards, must get the same legal-card sets at every play and the same deal score under our `colver` ruleset.

colver's encodings (../shared/data/real/colver/FORMAT.md §1-3): seats N E S W = 0-3 in playing order, teams
[NS, EW]; card id = suit*8 + rank with suits S H D C and ranks 7 8 9 J Q K 10 A.
"""

import numpy as np
import pyarrow as pa
import pytest

colver = pytest.importorskip("colver", reason="optional extra: pip install -e '.[diff]' (colver==0.11.1)")

from pipeline import rules  # noqa: E402

from pipeline.formats import native
from pipeline.storage import schema
from pipeline.rescore import score_batch  # noqa: E402
from pipeline.rescore.play import PlayRules, legal_cards  # noqa: E402
from pipeline.trick_order import strength  # noqa: E402

RANK_MAP = [0, 1, 2, 4, 5, 6, 3, 7]          # colver rank index -> ours (7 8 9 J Q K 10 A -> face order)


def ours(cid: int) -> int:
    return (3 - cid // 8) * 8 + RANK_MAP[cid % 8]


def call(a: int) -> str:
    if a == 0:
        return "pass"
    if a <= 36:
        return f"{80 + 10 * ((a - 1) // 4)}{'SHDC'[(a - 1) % 4]}"
    return {41: "coinche", 42: "surcoinche"}.get(a, f"capot{'SHDC'[(a - 37) % 4]}")


def play_one(seed: int, pr: PlayRules):
    """Play one random deal in colver; check our legal sets at every card; return the native game object."""
    env = colver.Env.deal(dealer=seed % 4, seed=seed)
    init = [[ours(c) for c in h] for h in env.get_initial_hands()]
    auction, plays = [], []
    held = [set(h) for h in init]
    trick: list[tuple[int, int]] = []
    while env.phase() != 2:
        seat = env.current_player()
        if env.phase() == 0:
            a = env.action_random()
            auction.append([seat, call(a)])
        else:
            c = env.get_contract()
            strain = 3 - c["trump"]
            legal_theirs = sorted(ours(x) for x in env.legal_actions())
            led = np.array([trick[0][1] // 8 if trick else 0], dtype=np.int8)
            win_seat, win_card = trick[0] if trick else (0, 0)
            if trick:
                st = strength(np.array([x for _, x in trick], dtype=np.int8), np.repeat(led, len(trick)),
                              np.repeat(np.int8(strain), len(trick)))
                win_seat, win_card = trick[int(np.argmax(st))]
            mask = legal_cards(np.array([sum(1 << x for x in held[seat])], dtype=np.uint32), np.array([not trick]),
                               led, np.array([strain], dtype=np.int8), np.array([win_card], dtype=np.int8),
                               np.array([bool(trick) and win_seat % 2 == seat % 2]), pr)
            assert [x for x in range(32) if int(mask[0]) >> x & 1] == legal_theirs, (seed, len(plays))
            a = env.action_random()
            card = ours(a)
            held[seat].discard(card)
            plays.append([seat, card])
            trick = [] if len(trick) == 3 else trick + [(seat, card)]
        env.step(a)
    c = env.get_contract()
    contract = None
    if c:
        taker = [s for s, x in auction if x not in ("pass", "coinche", "surcoinche")][-1]
        contract = {"taker": taker, "strain": "SHDC"[c["trump"]], "bid": None if c["value"] == 250 else c["value"],
                    "capot_bid": c["value"] == 250, "coinche": c["coinche"]}
    from pipeline.cards import card_str
    hand = {"hand_no": 1, "dealer": seed % 4, "hands": [[card_str(x) for x in h] for h in init],
            "auction": auction, "contract": contract,
            "plays": [[s, card_str(x)] for s, x in plays] if contract else None,
            "recorded": {"score": [int(x) for x in env.rewards()]}}
    return {"format": "rebelote", "version": 1, "source": "colver-diff", "source_game_id": str(seed),
            "variant": "coinche", "n_players": 4, "players": list("NESW"), "hands": [hand]}


def test_random_deals_score_and_legal_sets_identically():
    r = rules.load("colver")
    pr = PlayRules.of(r)
    rows = []
    for seed in range(300):
        rows.extend(native.game_to_rows(play_one(seed, pr), "rebelote", "<colver>", None)[1])
    s = score_batch(pa.Table.from_pylist(rows, schema=schema.schema("hands")), r)
    assert s.column("matches_recorded").to_pylist() == [True] * len(rows)
    assert sum(1 for x in s.column("status").to_pylist() if x == "scored") > 100
