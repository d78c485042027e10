"""Score-sheet readers: club CSV sheets (docs/scoresheet-csv.md) and carg Firestore dumps (scoresheets.md).

Fixtures are in tests/fixtures/scoresheets/ (constructed; see its README). Every hand lands at completeness
'summary' with the recorded scores; rescoring marks them unscorable and keeps nothing from the sheet out.
"""

import os
import shutil
from pathlib import Path

import pytest

from pipeline import formats, rules

from pipeline.storage import lake as lakemod

from pipeline.stats import reports as stats
from pipeline.formats import carg_json, scoresheet_csv
from pipeline.formats.records import Line
from pipeline.ingest.run import ingest_paths
from pipeline.rescore import rescore_lake

FIX = Path(__file__).parent / "fixtures" / "scoresheets"


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """Both readers in the registry (appended when pipeline/formats/__init__.py does not list them yet)."""
    readers = list(formats.READERS)
    for m in (scoresheet_csv, carg_json):
        if m not in readers:
            readers.append(m)
    monkeypatch.setattr(formats, "READERS", readers)


def lines_of(text: str) -> list[Line]:
    out, offset = [], 0
    for i, line in enumerate(text.splitlines(keepends=True), start=1):
        out.append((i, offset, line))
        offset += len(line.encode())
    return out


def read_csv(text: str, path: str = "sheet.csv"):
    recs = list(scoresheet_csv.read(iter(lines_of(text)), path))
    return [r for r in recs if not hasattr(r, "reason")], [r for r in recs if hasattr(r, "reason")]


def copy_fixtures(tmp_path: Path, names: list[str]) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    for n in names:
        shutil.copy(FIX / n, d / n)
    return d


def hands_by_game(lake: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for h in sorted(lakemod.read(lake, "hands").to_pylist(), key=lambda h: (h["game_id"], h["hand_no"])):
        out.setdefault(h["game_id"], []).append(h)
    return out


def games_by_id(lake: Path) -> dict[str, dict]:
    return {g["game_id"]: g for g in lakemod.read(lake, "games").to_pylist()}


# ---------------------------------------------------------------- detection

def test_detection_picks_each_reader_and_nothing_else():
    for name, fmt in [("club_sheet.csv", "scoresheet-csv"), ("club_sheet_fr.csv", "scoresheet-csv"),
                      ("club_sheet_bad.csv", "scoresheet-csv"), ("carg_dump.json", "carg-json"),
                      ("carg_bad.json", "carg-json")]:
        head = (FIX / name).read_text(encoding="utf-8").removeprefix("\ufeff")
        assert formats.detect(name, head).NAME == fmt, name
    assert not scoresheet_csv.sniff("x.csv", "game,hand,score\n1,1,0\n")
    assert not carg_json.sniff("x.json", '{"format": "rebelote", "hands": []}\n')
    assert not scoresheet_csv.sniff("x.json", (FIX / "carg_dump.json").read_text()[:65536])
    assert not carg_json.sniff("x.csv", (FIX / "club_sheet.csv").read_text())


# ---------------------------------------------------------------- CSV sheets

def test_csv_sheet_imports_with_exact_values(tmp_path):
    d = copy_fixtures(tmp_path, ["club_sheet.csv", "club_sheet_fr.csv"])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.files, s.games, s.hands, sum(s.rejected.values())) == (2, 3, 11, 0)
    hands, games = hands_by_game(lake), games_by_id(lake)
    assert sorted(games) == ["club-mardi:2024-11-05-t1", "club-mardi:2024-11-05-t2", "scoresheet:tournoi-12"]

    t1 = hands["club-mardi:2024-11-05-t1"]
    g1 = games["club-mardi:2024-11-05-t1"]
    assert (g1["variant"], g1["ruleset_hint"], g1["players"], g1["target"], g1["recorded_final"], g1["n_hands"]) == \
        ("coinche", "pagat-coinche", ["Ana", "Ben", "Cat", "Dan"], 1000, [1430, 530], 5)
    # recorded_winner from the sheet's final totals and target: 1430 >= 1000 and above 530, so team A (0)
    assert g1["recorded_winner"] == 0 and g1["source_format"] == "scoresheet-csv"
    # dealer: Ana, then passes on (empty cells), Dan given on hand 4, then Ana again
    assert [h["dealer"] for h in t1] == [0, 1, 2, 3, 0]
    assert [h["taker"] for h in t1] == [1, 2, None, 0, 3]
    assert [h["strain"] for h in t1] == ["H", "S", None, "C", "NT"]
    assert [h["bid"] for h in t1] == [100, 80, None, None, 120]
    assert [h["capot_bid"] for h in t1] == [False, False, False, True, False]
    assert [h["coinche"] for h in t1] == [0, 1, 0, 0, 2]
    assert [h["recorded_score"] for h in t1] == [[50, 210], [0, 320], [0, 0], [250, 0], [1130, 0]]
    assert [h["recorded_totals"] for h in t1] == [[50, 210], [50, 530], [50, 530], [300, 530], [1430, 530]]
    assert [h["source_line"] for h in t1] == [2, 3, 4, 5, 6]
    for h in t1:
        assert (h["completeness"], h["initial_hands"], h["plays"], h["play_seats"], h["auction"], h["errors"]) == \
            ("summary", None, None, None, [], [])
        assert h["source"] == "club-mardi" and h["source_game_id"] == "2024-11-05-t1"

    # team-level sheet, rows out of order in the file
    t2 = hands["club-mardi:2024-11-05-t2"]
    g2 = games["club-mardi:2024-11-05-t2"]
    assert g2["players"] == ["Les Rouges", "Les Bleus", "Les Rouges", "Les Bleus"]
    assert (g2["variant"], g2["target"], g2["recorded_final"], g2["ruleset_hint"]) == ("belote", 501, None, None)
    assert g2["recorded_winner"] is None       # no totals written: no recorded result
    assert [(h["hand_no"], h["source_line"]) for h in t2] == [(1, 8), (2, 9), (3, 7)]
    assert [h["dealer"] for h in t2] == [1, 2, 3]
    assert [h["taker"] for h in t2] == [0, 1, 1]
    assert [h["strain"] for h in t2] == ["H", "C", "AT"]
    assert [h["bid"] for h in t2] == [None, None, None]
    assert [h["recorded_score"] for h in t2] == [[90, 70], [160, 0], [60, 200]]
    assert all(h["recorded_totals"] is None for h in t2)

    # French spreadsheet export: semicolons, byte-order mark, "Player 1" headers, French words, DD/MM/YYYY
    fr = hands["scoresheet:tournoi-12"]
    assert games["scoresheet:tournoi-12"]["players"] == ["Zoé", "Hélène", "Jérôme", "Loïc"]
    assert games["scoresheet:tournoi-12"]["variant"] == "coinche"
    assert [(h["dealer"], h["taker"], h["strain"], h["bid"], h["coinche"]) for h in fr] == \
        [(3, 0, "S", 90, 0), (0, 1, "H", 110, 1), (1, 2, "D", 80, 0)]
    # hand 2: Hélène (team B) failed a contré 110, so team A scores (110 + 160) x 2 = 540
    assert [h["recorded_score"] for h in fr] == [[180, 0], [540, 0], [170, 20]]
    assert games["scoresheet:tournoi-12"]["recorded_final"] == [890, 20]


def test_csv_bad_rows_are_rejected_with_line_and_reason_and_the_rest_imports(tmp_path):
    d = copy_fixtures(tmp_path, ["club_sheet_bad.csv"])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.games, s.hands) == (2, 4)
    assert sorted(games_by_id(lake)) == ["scoresheet:g1", "scoresheet:g10"]
    assert dict(s.rejected) == {"unknown_column": 1, "bad_row": 1, "bad_value": 4, "missing_hand": 1,
                                "conflicting_value": 1, "no_dealer": 1, "duplicate_hand_no": 1, "no_bid": 1}
    rej = sorted(lakemod.read(lake, "rejects").to_pylist(), key=lambda r: r["source_line"])
    got = [(r["source_line"], r["reason_code"], r["game_id"], r["hand_no"]) for r in rej]
    assert got == [
        (1, "unknown_column", None, None),
        (5, "bad_value", "scoresheet:g2", 2),
        (6, "bad_value", "scoresheet:g2", 3),
        (7, "missing_hand", "scoresheet:g3", 3),
        (10, "bad_value", "scoresheet:g4", 1),
        (12, "conflicting_value", "scoresheet:g5", 2),
        (13, "no_dealer", "scoresheet:g6", 1),
        (16, "duplicate_hand_no", "scoresheet:g7", 2),
        (17, "bad_row", None, None),
        (18, "bad_value", "scoresheet:g8", 1),
        (19, "no_bid", "scoresheet:g9", 1),
    ]
    reason = {r["source_line"]: r["reason"] for r in rej}
    assert reason[1].startswith("unknown column(s) table ignored")
    assert reason[5] == 'team B score (score_b) "12a" is not a whole number (the whole game is rejected)'
    assert reason[6].startswith('strain "purple" is not one of S H D C NT AT')
    assert "missing [3]" in reason[7]
    assert reason[10].startswith('taker "Zoe" is not one of the players (Ivan, Jade, Kim, Leo)')
    assert 'variant is "coinche" on line 11 but "belote" on line 12' in reason[12]
    assert "hand 2 appears twice (lines 15 and 16)" in reason[16]
    assert reason[17] == "game_id is empty"
    assert 'taker "A" is a team' in reason[18]
    assert all(r["source_file"] == str(d / "club_sheet_bad.csv") for r in rej)
    assert [r["raw"] for r in rej if r["source_line"] == 5] == ["g2,2,,5,,,,,,Gus,C,80,0,yes,160,12a\n"]
    # the unknown column did not stop the good games
    g10 = hands_by_game(lake)["scoresheet:g10"]
    assert [(h["dealer"], h["taker"], h["strain"], h["recorded_score"]) for h in g10] == \
        [(3, 0, "S", [162, 0]), (0, 1, "AT", [0, 162])]


@pytest.mark.parametrize("cells, reason", [
    ({"score_a": "12.5"}, 'team A score (score_a) "12.5" is not a whole number'),
    ({"score_b": ""}, "team B score (score_b) is empty (write 0 for no points)"),
    ({"bid": "75"}, 'bid "75" must be a whole number from 80 to 180, or capot'),
    ({"coinche": "3"}, 'coinche "3" is not 0, 1 (coinche/contre) or 2 (surcoinche/surcontre)'),
    ({"made": "peut-être"}, 'made "peut-être" is not yes or no'),
    ({"dealer": "Zed"}, 'dealer "Zed" is not one of the players (Ana, Ben, Cat, Dan)'),
    ({"strain": ""}, "taker is given but strain is empty"),
    ({"taker": "", "made": ""}, 'strain "H" is given but taker is empty'),
    ({"variant": "tarot"}, 'variant "tarot" is not belote or coinche (contree)'),
    ({"ruleset": "nope"}, 'ruleset "nope" is not a shipped ruleset'),
    ({"target": "mille"}, 'target "mille" is not a whole number'),
    ({"date": "32/13/2024"}, 'date "32/13/2024" is not a date'),
    ({"source": "a b"}, 'source "a b" must be a plain name'),
    ({"player4": "ana"}, "the four player names must differ"),
    ({"total_b": ""}, "give both total_a and total_b, or neither"),
    ({"hand_no": "0"}, 'hand_no "0" must be 1 or more'),
    ({"team_a": "Rouges"}, "give either player1..player4 or team_a/team_b, not both"),
])
def test_csv_row_errors(cells, reason):
    cols = ["game_id", "hand_no", "date", "variant", "ruleset", "target", "source", "player1", "player2", "player3",
            "player4", "team_a", "team_b", "dealer", "taker", "strain", "bid", "coinche", "made", "score_a",
            "score_b", "total_a", "total_b"]
    row = dict(zip(cols, ["g", "1", "2024-11-05", "coinche", "colver", "1000", "club", "Ana", "Ben", "Cat", "Dan", "",
                          "", "Ana", "Ben", "H", "100", "0", "yes", "50", "210", "50", "210"]))
    row.update(cells)
    games, rejects = read_csv(",".join(cols) + "\n" + ",".join(row[c] for c in cols) + "\n")
    assert games == [] and len(rejects) == 1
    assert reason in rejects[0].reason and rejects[0].where.line == 2


def test_csv_header_problems_and_quoted_cells():
    _, rej = read_csv("game_id,hand_no,score_a,score_b\ng,1,0,0\n")
    assert len(rej) == 1 and rej[0].code == "bad_header" and rej[0].where.line == 1
    assert "missing column(s): variant, dealer, taker, player1..player4 (or team_a and team_b)" in rej[0].reason
    _, rej = read_csv("game_id,hand_no,variant,dealer,taker,score_a,score_a,team_a,team_b\n")
    assert rej[0].code == "bad_header" and "score_a appears twice" in rej[0].reason
    # a quoted cell spanning two lines: the next row keeps its own line number; blank lines and
    # spreadsheet rows of empty cells are skipped
    text = ('game_id,hand_no,variant,team_a,team_b,dealer,taker,strain,score_a,score_b,notes\n'
            'g,1,belote,"Rouges, du club",Bleus,A,B,S,0,162,"deux\nlignes"\n'
            '\n,,,,,,,,,,\n'
            'g,2,,,,,A,H,162,0,\n'
            'g,3,,,,,b,D,90,70,x,\n')
    games, rej = read_csv(text)
    assert rej == [] and len(games) == 1
    g = games[0]
    assert g.game["players"] == ["Rouges, du club", "Bleus", "Rouges, du club", "Bleus"]
    assert [(h["source_line"], h["dealer"], h["taker"]) for h in g.hands] == [(2, 0, 1), (6, 1, 0), (7, 2, 1)]
    # a row with more filled cells than the header has columns
    games, rej = read_csv(text.replace("x,\n", "x,oops\n"))
    assert games == [] and rej[0].code == "bad_row" and rej[0].where.line == 7 and "12 cells" in rej[0].reason
    # a quote never closed swallows the rows below it: caught, not imported as a note
    games, rej = read_csv(text.replace('"deux\nlignes"', '"deux'))
    assert games == [] and [(r.code, r.where.line) for r in rej] == [("bad_row", 2)]
    assert "a quote opened on line 2 is not closed: lines 2..6 were read as one row" in rej[0].reason
    # numbers as a French spreadsheet shows them
    games, rej = read_csv(text.replace("162,0,\n", "1\u00a0162,0,\n"))
    assert rej == [] and games[0].hands[1]["recorded_score"] == [1162, 0]


def test_csv_undecodable_line_is_rejected_and_its_game_too():
    text = ("game_id,hand_no,variant,team_a,team_b,dealer,taker,strain,score_a,score_b\n"
            "g,1,belote,R,B,A,B,S,0,162\n"
            "h,1,belote,R,B,A,B,S,0,162\n")
    lines = lines_of(text) + [(4, 999, None)] + [(5, 1010, "g,3,,,,,A,H,162,0\n")]
    recs = list(scoresheet_csv.read(iter(lines), "s.csv"))
    codes = [(getattr(r, "code", "game"), getattr(r, "where").line) for r in recs]
    assert ("bad_encoding", 4) in codes and ("missing_hand", 2) in codes and ("game", 3) in codes


# ---------------------------------------------------------------- carg dumps

def test_carg_dump_imports_with_exact_values(tmp_path):
    d = copy_fixtures(tmp_path, ["carg_dump.json"])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.files, s.games, s.hands, sum(s.rejected.values())) == (1, 4, 14, 0)
    hands, games = hands_by_game(lake), games_by_id(lake)
    assert sorted(games) == ["carg-belote:g-belote-1", "carg-coinche:g-coinche-2", "carg-coinche:g-demo-1",
                             "carg-contree:g-contree-1"]

    # scoresheets.md §6 example, number for number
    demo = hands["carg-coinche:g-demo-1"]
    g = games["carg-coinche:g-demo-1"]
    assert g["players"] == ["Ana+Cat", "Ben+Dan", "Ana+Cat", "Ben+Dan"]
    assert (g["variant"], g["target"], g["recorded_final"], g["recorded_winner"], g["ruleset_hint"]) == \
        ("coinche", 1000, None, None, None)
    assert [(h["taker"], h["strain"], h["bid"], h["coinche"], h["capot_bid"]) for h in demo] == \
        [(0, "H", 100, 0, False), (1, "S", 80, 1, False)]
    assert [h["recorded_score"] for h in demo] == [[220, 40], [670, 20]]
    assert [h["recorded_totals"] for h in demo] == [[220, 40], [890, 60]]
    assert [h["recorded_card_points"] for h in demo] == [[120, 42], [102, 60]]
    assert [(h["belote_seat"], h["last_trick_seat"], h["dealer"]) for h in demo] == [(-1, 0, 0), (1, 0, 1)]
    assert [h["source_hand_id"] for h in demo] == ["g-demo-1#0", "g-demo-1#1"]
    for hs in hands.values():
        for h in hs:
            assert (h["completeness"], h["initial_hands"], h["plays"], h["n_players"]) == ("summary", None, None, 4)

    # finished coinche game: doubled made contract, a misdeal (special round), a capot; winner from the team id
    c2 = hands["carg-coinche:g-coinche-2"]
    g = games["carg-coinche:g-coinche-2"]
    assert g["players"] == ["Eve+Fred", "Gus+Hana", "Eve+Fred", "Gus+Hana"]   # members in player_list order
    assert (g["target"], g["recorded_final"], g["recorded_winner"]) == (500, [560, 410], 0)
    assert [h["recorded_score"] for h in c2] == [[240, 50], [70, 360], [0, 0], [250, 0]]
    assert [(h["taker"], h["strain"], h["bid"], h["capot_bid"], h["coinche"]) for h in c2] == \
        [(0, "H", 110, False, 0), (1, "S", 90, False, 1), (None, None, None, False, 0), (0, "D", None, True, 0)]
    assert c2[2]["belote_seat"] is None and c2[2]["recorded_card_points"] is None
    assert all(h["errors"] == [] for h in c2)

    # contrée, contract-only mode, infinite game: no-trump (no card points), failed surcontred capot, manual round
    ct = hands["carg-contree:g-contree-1"]
    assert games["carg-contree:g-contree-1"]["target"] is None
    assert [h["recorded_score"] for h in ct] == [[0, 240], [0, 120], [0, 650], [90, 70]]
    assert [(h["strain"], h["bid"], h["capot_bid"], h["coinche"]) for h in ct] == \
        [("C", 100, False, 1), ("NT", 120, False, 0), ("H", None, True, 2), ("S", 80, False, 0)]
    assert ct[1]["recorded_card_points"] is None
    assert (ct[3]["belote_seat"], ct[3]["last_trick_seat"], ct[3]["recorded_card_points"]) == (None, None, None)
    assert ct[3]["recorded_totals"] == [90, 1080]

    # classic belote; player_list starts with a THEM player, so the prompted dealer starts on seat 1
    b = hands["carg-belote:g-belote-1"]
    assert games["carg-belote:g-belote-1"]["players"] == ["Ivan+Kim", "Jade+Léo", "Ivan+Kim", "Jade+Léo"]
    assert [h["dealer"] for h in b] == [1, 2, 3, 0]
    assert [(h["taker"], h["strain"], h["bid"]) for h in b] == [(1, "S", None), (0, "D", None), (0, "C", None),
                                                                 (0, "H", None)]
    assert [h["recorded_score"] for h in b] == [[60, 120], [0, 160], [130, 60], [100, 62]]
    # the last round's recorded score is not what carg computes: kept, and flagged
    assert [h["errors"] for h in b[:3]] == [[], [], []]
    assert b[3]["errors"] == ["recorded taker/defender score 100/62 differs from carg's own rule (100/60); "
                              "the recorded score is kept"]


def test_carg_expected_scores_match_the_apps_tests():
    base = {"taker": "US", "defender": "THEM", "dix_de_der": "THEM", "belote_rebelote": None,
            "contract_name": "NORMAL", "contract_type": "NORMAL"}
    # "failed": contract 100, defenders 110 trick points + last trick -> 370
    assert carg_json.expected_scores({**base, "contract": 100, "us_trick_score": 42, "them_trick_score": 110},
                                     "coinche", True) == (0, 370, False)
    # failed capot in sum mode: 162 + 250 + defenders' trick points -> 420
    assert carg_json.expected_scores({**base, "contract": 162, "contract_type": "CAPOT", "us_trick_score": 144,
                                      "them_trick_score": 8}, "coinche", True) == (0, 420, False)
    # "Contract - Coinche": a doubled made contract does not zero the defenders -> 440 vs 50
    assert carg_json.expected_scores({**base, "contract": 110, "contract_name": "COINCHE", "dix_de_der": "US",
                                      "us_trick_score": 100, "them_trick_score": 52}, "coinche", True) == (440, 50, True)


def test_carg_bad_games_are_rejected_and_the_rest_imports(tmp_path):
    d = copy_fixtures(tmp_path, ["carg_bad.json"])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert (s.games, s.hands) == (1, 1)
    assert dict(s.rejected) == {"bad_value": 1, "no_score": 1, "totals_mismatch": 1, "missing_hand": 1, "no_game": 1}
    g = games_by_id(lake)["carg-coinche:g-ok"]
    assert g["players"] == ["t-us", "t-them", "t-us", "t-them"]     # no team documents: the team ids
    rej = {r["reason_code"]: r for r in lakemod.read(lake, "rejects").to_pylist()}
    assert (rej["bad_value"]["game_id"], rej["bad_value"]["hand_no"], rej["bad_value"]["source_line"]) == \
        ("carg-coinche:g-color", 2, 166)
    assert rej["bad_value"]["reason"].startswith("card_color 'PURPLE' is not one of HEART")
    assert '"card_color":"PURPLE"' in rej["bad_value"]["raw"]
    assert rej["no_score"]["game_id"] == "carg-coinche:g-noscore"
    assert "totals 230-40 (US-THEM) differ from the sum of its rounds 220-40" in rej["totals_mismatch"]["reason"]
    assert (rej["missing_hand"]["hand_no"], rej["missing_hand"]["source_line"]) == (2, 263)
    assert "s-orphan refers to game 'g-missing'" in rej["no_game"]["reason"]


def test_carg_invalid_json():
    recs = list(carg_json.read(iter(lines_of('{"coinche-game-prod": {\n  "g": {,}\n}}\n')), "x.json"))
    assert len(recs) == 1 and recs[0].code == "invalid_json" and recs[0].where.line == 2


# ---------------------------------------------------------------- idempotency, rescoring, stats

def test_reimport_is_idempotent(tmp_path):
    d = copy_fixtures(tmp_path, ["club_sheet.csv", "club_sheet_fr.csv", "club_sheet_bad.csv", "carg_dump.json",
                                 "carg_bad.json"])
    lake = tmp_path / "lake"
    s1 = ingest_paths([d], lake)
    assert (s1.games, s1.hands, sum(s1.rejected.values())) == (10, 30, 16)
    counts = {t: lakemod.read(lake, t).num_rows for t in ("hands", "games", "rejects")}
    assert counts == {"hands": 30, "games": 10, "rejects": 16}
    for f in d.iterdir():        # touch every file: same bytes, so the manifest's content hash skips them
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    s2 = ingest_paths([d], lake)
    assert (s2.games, s2.hands, s2.duplicates, s2.unchanged) == (0, 0, 0, 5)
    s2 = ingest_paths([d], lake, reread=True)      # read again anyway: every hand is already there
    assert (s2.games, s2.hands, s2.duplicates) == (0, 0, 30)
    assert {t: lakemod.read(lake, t).num_rows for t in ("hands", "games", "rejects")} == counts
    # the same sheet under another name: the same games, nothing new
    shutil.copy(d / "club_sheet.csv", tmp_path / "copy.csv")
    s3 = ingest_paths([tmp_path / "copy.csv"], lake)
    assert (s3.games, s3.hands, s3.duplicates, sum(s3.rejected.values())) == (0, 0, 8, 0)


def test_rescore_marks_summary_hands_unscorable_and_recorded_scores_stay_usable(tmp_path):
    d = copy_fixtures(tmp_path, ["club_sheet.csv", "carg_dump.json"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    summary = rescore_lake(lake, rules.load("pagat-coinche"))
    # the hand nobody took and carg's misdeal are passed out (0-0, as recorded); the others have nothing to rescore
    assert summary.status == {"unscorable": 20, "passed_out": 2}
    con = stats.connect(lake)
    assert con.execute("SELECT DISTINCT reason FROM scores WHERE status = 'unscorable'").fetchall() == \
        [("summary hands carry no cards: nothing to rescore",)]
    # recorded scores per player straight from the hands (seats view: team = seat % 2)
    rows = con.execute("""
        SELECT s.player, sum(h.recorded_score[s.team + 1]) AS points, count(*) AS hands
        FROM seats s JOIN hands h USING (hand_key)
        WHERE h.game_id = 'club-mardi:2024-11-05-t1'
        GROUP BY s.player ORDER BY s.player""").fetchall()
    assert rows == [("Ana", 1430, 5), ("Ben", 530, 5), ("Cat", 1430, 5), ("Dan", 530, 5)]
    # team-level seats: the side label counts each hand once per team
    rows = con.execute("""
        SELECT player, sum(pts) FROM (
            SELECT DISTINCT s.player, h.hand_key, h.recorded_score[s.team + 1] AS pts
            FROM seats s JOIN hands h USING (hand_key) WHERE h.game_id = 'carg-coinche:g-demo-1')
        GROUP BY player ORDER BY player""").fetchall()
    assert rows == [("Ana+Cat", 890), ("Ben+Dan", 60)]
    taken = con.execute("SELECT player, count(*) FILTER (WHERE is_taker) FROM seats "
                        "WHERE game_id = 'carg-coinche:g-demo-1' GROUP BY player ORDER BY player").fetchall()
    assert taken == [("Ana+Cat", 1), ("Ben+Dan", 1)]


# ---------------------------------------------------------------- the fresh-user trial's quirks (issues #4/#5)
# Expected values below are computed by hand from the fixture sheets (tests/fixtures/scoresheets/).

def test_sheet_date_becomes_played_at_and_since_finds_its_games(tmp_path):
    """Quirk 1: the sheet's date was dropped, so --since found none of its games."""
    from datetime import datetime, timezone
    d = copy_fixtures(tmp_path, ["club_sheet.csv", "club_sheet_fr.csv", "club_sheet_contradictions.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    when = {g: x["played_at"] for g, x in games_by_id(lake).items()}
    utc = timezone.utc
    assert when == {
        # club_sheet.csv: "2024-11-05" on hand 1 of each game (a bare date is midnight)
        "club-mardi:2024-11-05-t1": datetime(2024, 11, 5, tzinfo=utc),
        "club-mardi:2024-11-05-t2": datetime(2024, 11, 5, tzinfo=utc),
        # club_sheet_fr.csv: "12/11/2024" is DD/MM/YYYY
        "scoresheet:tournoi-12": datetime(2024, 11, 12, tzinfo=utc),
        # "2024-11-12T21:45:00+01:00": the offset is honoured
        "scoresheet:litige": datetime(2024, 11, 12, 20, 45, tzinfo=utc),
    }
    # a time without an offset is taken as UTC as written (the native format's rule)
    games, rej = read_csv("game_id,hand_no,date,variant,team_a,team_b,dealer,taker,strain,score_a,score_b\n"
                          "g,1,2024-11-12 20:30,belote,R,B,A,B,S,0,162\n")
    assert rej == [] and games[0].game["played_at"] == datetime(2024, 11, 12, 20, 30, tzinfo=utc)
    rules_ = rules.load("pagat-coinche")
    rescore_lake(lake, rules_)
    since = stats.run_report(lake, "players", "pagat-coinche",
                             stats.Filters(since=stats.parse_when("2024-11-10"))).to_pylist()
    # after 2024-11-10: tournoi-12 (12 Nov) and the litige game (12 Nov), not the two games of 5 Nov
    assert sorted(r["player"] for r in since) == ["Bleus", "Hélène", "Jérôme", "Loïc", "Rouges", "Zoé"]
    until = stats.run_report(lake, "players", "pagat-coinche",
                             stats.Filters(until=stats.parse_when("2024-11-05", end=True))).to_pylist()
    assert sorted(r["player"] for r in until) == ["Ana", "Ben", "Cat", "Dan", "Les Bleus", "Les Rouges"]


def test_sheet_totals_that_do_not_add_up_are_rejected(tmp_path):
    """Quirk 2: 210 + 160 written as 999 imported with exit 0."""
    d = copy_fixtures(tmp_path, ["club_sheet_contradictions.csv"])
    lake = tmp_path / "lake"
    s = ingest_paths([d], lake)
    assert dict(s.rejected) == {"totals_mismatch": 1, "made_mismatch": 2}
    rej = {r["game_id"]: r for r in lakemod.read(lake, "rejects").to_pylist()}
    r = rej["scoresheet:totals"]
    assert (r["source_line"], r["hand_no"], r["reason_code"]) == (3, 2, "totals_mismatch")
    assert r["source_file"] == str(d / "club_sheet_contradictions.csv")
    assert r["reason"] == ("the running totals do not add up: total_b is 999 but hand 1's total_b 210 + hand 2's score_b 160 = "
                           "370; if points held by a litige were added here, write litige in the made cell of the "
                           "hand that held them (the whole game is rejected)")
    # totals left empty on some rows: the next written totals are checked against the scores of all hands since
    head = "game_id,hand_no,variant,team_a,team_b,dealer,taker,strain,made,score_a,score_b,total_a,total_b\n"
    ok = head + "g,1,belote,R,B,A,A,S,yes,90,70,90,70\ng,2,,,,,B,H,yes,0,160,,\ng,3,,,,,A,D,yes,100,60,190,290\n"
    games, rej = read_csv(ok)
    assert rej == [] and games[0].game["recorded_final"] == [190, 290]
    games, rej = read_csv(ok.replace("190,290", "190,300"))
    assert games == [] and [(x.code, x.where.line, x.hand_no) for x in rej] == [("totals_mismatch", 4, 3)]
    # 70 (hand 1) + 160 + 60 (hands 2..3) = 290, not 300
    assert rej[0].reason.startswith("the running totals do not add up: total_b is 300 but hand 1's total_b 70 + "
                                    "the score_b of hands 2..3 (220) = 290")


def test_sheet_made_no_while_taker_scored_the_winning_points_is_rejected(tmp_path):
    """Quirk 2: made=no while the taker's team scored the points imported with exit 0."""
    d = copy_fixtures(tmp_path, ["club_sheet_contradictions.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    rej = {r["game_id"]: r for r in lakemod.read(lake, "rejects").to_pylist()}
    r = rej["scoresheet:failed"]       # line 4: Ana (team A) took, made = no, score_a 160, score_b 0
    assert (r["source_line"], r["hand_no"], r["reason_code"]) == (4, 1, "made_mismatch")
    assert r["reason"] == ('made is "no" (failed) but the taker\'s team A (score_a 160) scored at least as much as '
                           "team B (score_b 0): a failed contract gives the defenders the larger score (is made, the "
                           "taker or a score written wrong?) (the whole game is rejected)")
    r = rej["scoresheet:madeyes"]      # line 5: Ana (team A) took, made = yes, score_a 0, score_b 160
    assert (r["source_line"], r["hand_no"], r["reason_code"]) == (5, 1, "made_mismatch")
    assert r["reason"].startswith('made is "yes" (made) but the taker\'s team A (score_a 0) scored nothing against '
                                  "team B (score_b 160)")
    # a made contract whose defenders score more (their declarations) is allowed: house rules differ
    head = "game_id,hand_no,variant,player1,player2,player3,player4,dealer,taker,strain,bid,made,score_a,score_b\n"
    games, rej = read_csv(head + "g,1,coinche,Ana,Ben,Cat,Dan,Ana,Ben,H,80,yes,270,160\n")
    assert rej == [] and len(games) == 1


def test_sheet_litige_carry_over_passes_the_totals_check(tmp_path):
    """The one difference the totals check allows: points held by a litige landing in one team's total later."""
    d = copy_fixtures(tmp_path, ["club_sheet_contradictions.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    lit = hands_by_game(lake)["scoresheet:litige"]
    # hand 1: litige 0-80 (Rouges' 80 held); hand 2: Bleus make 60-100 and take the 80: 80 + 100 + 80 = 260
    assert [h["recorded_score"] for h in lit] == [[0, 80], [60, 100], [0, 160]]
    assert [h["recorded_totals"] for h in lit] == [[0, 80], [60, 260], [60, 420]]
    head = "game_id,hand_no,variant,team_a,team_b,dealer,taker,strain,made,score_a,score_b,total_a,total_b\n"
    rows = "g,1,belote,R,B,A,A,H,litige,0,80,0,80\ng,2,,,,,B,S,yes,60,100,60,260\n"
    # the same carry-over without the litige mark: rejected, with the hint
    _, rej = read_csv(head + rows.replace("litige", "no"))
    assert [(x.code, x.where.line) for x in rej] == [("totals_mismatch", 3)]
    assert "total_b is 260 but hand 1's total_b 80 + hand 2's score_b 100 = 180; if points held by a litige" in rej[0].reason
    # both teams' totals growing beyond their scores is no carry-over (the pot goes to one team)
    _, rej = read_csv(head + rows.replace("60,100,60,260", "60,100,70,260"))
    assert [(x.code, x.where.line) for x in rej] == [("totals_mismatch", 3)]
    # once given out, the pot is gone: a second surplus is rejected
    _, rej = read_csv(head + rows + "g,3,,,,,A,C,no,0,160,60,500\n")
    assert [(x.code, x.where.line) for x in rej] == [("totals_mismatch", 4)]


def test_carg_starting_date_and_manual_rounds_are_checked():
    """Quirks 1 and 2 for carg-json: starting_date becomes played_at; a manual round's contract_fulfilled is
    checked with the app's manual rule (scoresheets.md §5) and flagged, since carg's rule is advisory."""
    import json
    from datetime import datetime, timezone
    doc = json.loads((FIX / "carg_dump.json").read_text())
    colls = doc["__collections__"]
    # g-contree-1's last round is a manual one: contract 80, taker_score 90 -> made; say it failed
    rounds = next(s for s in colls["contree-score-prod"].values() if s["game"] == "g-contree-1")["rounds"]
    assert rounds[3]["is_manual_mode"] is True
    rounds[3]["contract_fulfilled"] = False
    recs = list(carg_json.read(iter(lines_of(json.dumps(doc, indent=1))), "dump.json"))
    games = {r.game["game_id"]: r for r in recs if not hasattr(r, "reason")}
    assert not [r for r in recs if hasattr(r, "reason")]
    # g-demo-1 (scoresheets.md §6): "starting_date": "2024-03-02T20:15:00", local time taken as UTC as written
    assert games["carg-coinche:g-demo-1"].game["played_at"] == datetime(2024, 3, 2, 20, 15, tzinfo=timezone.utc)
    manual = games["carg-contree:g-contree-1"].hands[3]
    assert manual["recorded_score"] == [90, 70]          # kept as recorded
    assert manual["errors"] == ["contract_fulfilled is false but carg's own rule for a manual round (taker score >= "
                                "contract 80; taker score 90) says made"]
    # a starting_date that is not a date-time rejects the game
    colls["coinche-game-prod"]["g-demo-1"]["starting_date"] = "mardi soir"
    recs = list(carg_json.read(iter(lines_of(json.dumps(doc, indent=1))), "dump.json"))
    bad = [r for r in recs if hasattr(r, "reason")]
    assert [(r.code, r.game_id) for r in bad] == [("bad_value", "carg-coinche:g-demo-1")]
    assert "starting_date 'mardi soir' is not a date-time" in bad[0].reason


def test_rescore_summary_does_not_compare_totals_of_summary_games(tmp_path):
    """Quirk 3: "recorded game totals matched 0/1" for a game whose hands cannot be rescored."""
    from pipeline.rescore.engine import SUMMARY_REASON
    d = copy_fixtures(tmp_path, ["club_sheet.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    s = rescore_lake(lake, rules.load("pagat-coinche"))
    # 8 hands: t1's hand 3 passed out, the other 7 have no cards
    assert s.status == {"passed_out": 1, "unscorable": 7}
    assert s.unscorable == {SUMMARY_REASON: 7}
    # t1 records totals [1430, 530]; 4 of its hands are not rescored, so they are not compared
    assert (s.games_recorded, s.games_matched, s.games_partial) == (0, 0, 1)
    line = str(s)
    assert "recorded game totals matched" not in line
    assert (", 1 game's recorded totals not compared (it has hands not rescored: a summary hand counts its recorded "
            "score, any other unscorable hand 0 - 0)") in line
    assert line.endswith("; unscorable: 7 summary hands carry no cards: nothing to rescore (summary hands keep their "
                         "recorded scores, which the reports count)")
    gs = {g["game_id"]: g for g in lakemod.read(lake, "game_scores").to_pylist()}
    assert {g: (x["n_hands"], x["unscorable_hands"], x["totals"], x["winner"]) for g, x in gs.items()} == {
        # the summary hands count their recorded scores (club_sheet.csv): t1 ends at the sheet's own total_a/total_b
        # 1430/530, under pagat-coinche's target of 2000 (no winner); t2 (no totals on the sheet): 90+160+60 = 310
        # and 70+0+200 = 270
        "club-mardi:2024-11-05-t1": (5, 4, [1430, 530], None),
        "club-mardi:2024-11-05-t2": (3, 3, [310, 270], None),
    }


@pytest.mark.parametrize("derived", [True, False], ids=["written", "on-the-fly"])
def test_players_report_counts_summary_hands_from_recorded_scores(tmp_path, derived):
    """Quirk 4: points_per_hand 0.0000 and won_of 0/0 for summary hands. Expected rows by hand from
    club_sheet.csv. Game t1 (A = Ana + Cat, B = Ben + Dan): hand 1 Ben takes, 50-210; hand 2 Cat, 0-320; hand 3
    passed, 0-0; hand 4 Ana, 250-0; hand 5 Dan, 1130-0; totals 1430-530, target 1000, so A won. Game t2 (team
    sheet, A = Les Rouges): hand 1 A takes, 90-70; hand 2 B, 160-0; hand 3 B, 60-200; no totals, so no winner."""
    d = copy_fixtures(tmp_path, ["club_sheet.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    rescore_lake(lake, rules.load("pagat-coinche"), derived=derived)
    cols = ["hands", "taken", "points", "points_hands", "points_per_hand", "taker_points_per_hand",
            "defender_points_per_hand", "won", "finished", "won_of", "made_of"]
    got = {r["player"]: tuple(r[c] for c in cols)
           for r in stats.run_report(lake, "players", "pagat-coinche").to_pylist()}
    assert got == {
        # Ana: 1430 / 5 = 286; took hand 4 (250); defended hands 1 and 5: (50 + 1130) / 2 = 590
        "Ana": (5, 1, 1430, 5, 286.0, 250.0, 590.0, 1, 1, "1/1", "0/0"),
        # Cat: took hand 2 (0); defended hands 1 and 5: 590
        "Cat": (5, 1, 1430, 5, 286.0, 0.0, 590.0, 1, 1, "1/1", "0/0"),
        # Ben: 530 / 5 = 106; took hand 1 (210); defended hands 2 and 4: (320 + 0) / 2 = 160
        "Ben": (5, 1, 530, 5, 106.0, 210.0, 160.0, 0, 1, "0/1", "0/0"),
        # Dan: took hand 5 (0); defended hands 2 and 4: 160
        "Dan": (5, 1, 530, 5, 106.0, 0.0, 160.0, 0, 1, "0/1", "0/0"),
        # Les Rouges: (90 + 160 + 60) / 3 = 103.33; took hand 1 (90); defended 2 and 3: (160 + 60) / 2 = 110
        "Les Rouges": (3, 1, 310, 3, 103.33, 90.0, 110.0, 0, 0, "0/0", "0/0"),
        # Les Bleus: (70 + 0 + 200) / 3 = 90; took hands 2 and 3: (0 + 200) / 2 = 100; defended hand 1: 70
        "Les Bleus": (3, 2, 270, 3, 90.0, 100.0, 70.0, 0, 0, "0/0", "0/0"),
    }
    pairs = {(r["player_a"], r["player_b"]): (r["points"], r["points_per_hand"], r["won_of"])
             for r in stats.run_report(lake, "partnerships", "pagat-coinche").to_pylist()}
    assert pairs == {("Ana", "Cat"): (1430, 286.0, "1/1"), ("Ben", "Dan"): (530, 106.0, "0/1"),
                     ("Les Rouges", "Les Rouges"): (310, 103.33, "0/0"), ("Les Bleus", "Les Bleus"): (270, 90.0, "0/0")}
    h2h = {(r["pair_a"], r["pair_b"]): (r["games"], r["finished"], r["a_won"], r["b_won"])
           for r in stats.run_report(lake, "head_to_head", "pagat-coinche").to_pylist()}
    assert h2h == {("Ana & Cat", "Ben & Dan"): (1, 1, 1, 0),
                   ("Les Bleus & Les Bleus", "Les Rouges & Les Rouges"): (1, 0, 0, 0)}


def test_edited_sheet_replaces_its_game_instead_of_duplicate_game_id(tmp_path):
    """Quirk 5: docs/scoresheet-csv.md said an edited sheet is rejected as duplicate_game_id; it is replaced."""
    d = copy_fixtures(tmp_path, ["club_sheet.csv"])
    lake = tmp_path / "lake"
    ingest_paths([d], lake)
    sheet = d / "club_sheet.csv"
    # correct hand 1 of t2 (rows out of order: it is line 8): 90-70 becomes 100-60
    text = sheet.read_text(encoding="utf-8")
    old = "Les Bleus,A,coeur,,,yes,90,70,,,"
    assert old in text
    sheet.write_text(text.replace(old, "Les Bleus,A,coeur,,,yes,100,60,,,"), encoding="utf-8")
    s = ingest_paths([d], lake)
    assert sum(s.rejected.values()) == 0 and not lakemod.has_table(lake, "rejects")
    t2 = hands_by_game(lake)["club-mardi:2024-11-05-t2"]
    assert [h["recorded_score"] for h in t2] == [[100, 60], [160, 0], [60, 200]]
    assert lakemod.read(lake, "games").num_rows == 2 and lakemod.read(lake, "hands").num_rows == 8
    doc = (Path(__file__).resolve().parents[1] / "docs" / "scoresheet-csv.md").read_text()
    assert "**replaces** the one the sheet gave before" in doc
