"""The rows of one score-sheet game (:mod:`pipeline.formats.scoresheet_csv` reads the sheet and groups its lines
by game): each line's contract, made flag, penalties and claim, the totals checked against the running scores,
the game's settings; and the column names and cell readers both modules use."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pipeline.formats.records import GameRecord, Provenance, RecordError, Reject, finish_game, first_missing, new_hand
from pipeline.formats.validate import check_hand


NAME = "scoresheet-csv"
DEFAULT_SOURCE = "scoresheet"
PLAYER_COLS = ("player1", "player2", "player3", "player4")
TEAM_COLS = ("team_a", "team_b")
GAME_COLS = ("source", "date", "variant", "ruleset", "target") + PLAYER_COLS + TEAM_COLS
_SOURCE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_INT = re.compile(r"^[+-]?\d+$")
_GROUPED = re.compile(r"^[+-]?\d{1,3}([ \u00a0\u202f]\d{3})+$")
_VARIANTS = {"belote": "belote", "classique": "belote", "classic": "belote", "coinche": "coinche",
             "contree": "coinche", "contrée": "coinche"}


_STRAINS = {
    "S": ("s", "spade", "spades", "pique", "piques", "♠", "♤"),
    "H": ("h", "heart", "hearts", "coeur", "cœur", "coeurs", "cœurs", "♥", "♡"),
    "D": ("d", "diamond", "diamonds", "carreau", "carreaux", "♦", "♢"),
    "C": ("c", "club", "clubs", "trefle", "trèfle", "trefles", "trèfles", "♣", "♧"),
    "NT": ("nt", "no trump", "no-trump", "notrump", "sa", "sans atout", "sans-atout", "sans atouts"),
    "AT": ("at", "all trump", "all-trump", "alltrump", "all trumps", "ta", "tout atout", "tout-atout",
           "tout atouts"),
}


_STRAIN_OF = {alias: code for code, aliases in _STRAINS.items() for alias in aliases}
_COINCHE = {"": 0, "0": 0, "1": 1, "2": 2, "no": 0, "non": 0, "coinche": 1, "contre": 1, "double": 1,
            "surcoinche": 2, "surcontre": 2, "redouble": 2}


_YES = {"1", "y", "yes", "true", "o", "oui", "made", "fait", "faite", "réussi", "reussi"}
_NO = {"0", "n", "no", "false", "non", "failed", "chute", "chuté", "chutée", "dedans"}
_LITIGE = {"litige", "en litige", "tie"}
MADE, FAILED, LITIGE = "made", "failed", "litige"     # what a ``made`` cell says


def _norm(text: str) -> str:
    """A cell as compared with names and keywords: trimmed, inner blanks collapsed, case folded."""
    return " ".join(text.replace("\ufe0f", "").split()).casefold()


@dataclass
class _Row:
    line: int
    offset: int
    raw: str
    cells: dict[str, str]
    hand_no: int


@dataclass
class _Game:
    gid: str
    rows: list[_Row] = field(default_factory=list)
    failed: list[Reject] = field(default_factory=list)


def _int(text: str, what: str) -> int:
    t = text.strip()
    if _GROUPED.match(t):       # 1 130 as a French spreadsheet shows it
        t = re.sub(r"[ \u00a0\u202f]", "", t)
    if not _INT.match(t):
        raise RecordError("bad_value", f'{what} "{text}" is not a whole number')
    return int(t)


def _made(text: str) -> str | None:
    """What a ``made`` cell says: :data:`MADE`, :data:`FAILED`, :data:`LITIGE` (a tie whose taker's points are
    held for a later hand), or None when empty. Raises RecordError(bad_value) otherwise."""
    t = _norm(text)
    if not t:
        return None
    if t in _YES:
        return MADE
    if t in _NO:
        return FAILED
    if t in _LITIGE:
        return LITIGE
    raise RecordError("bad_value", f'made "{text}" is not yes or no (or litige: a tie whose points are carried '
                                   "over)")


def _date(text: str) -> datetime:
    """``games.played_at`` from a ``date`` cell: ISO 8601 (``2024-11-05``, ``2024-11-05 20:15``,
    ``2024-11-05T20:15:00Z``, ``...+01:00``) or ``DD/MM/YYYY`` with an optional ``HH:MM[:SS]``. A bare date is
    midnight; a time without an offset is taken as UTC as written (a sheet does not say its time zone; the native
    format's ``played_at`` reads it the same way). Returns an aware UTC datetime. Raises RecordError(bad_value)."""
    t = " ".join(text.split())
    when: datetime | None = None
    try:
        when = datetime.fromisoformat(t)
    except ValueError:
        for fmt in ("%d/%m/%Y", "%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S"):
            try:
                when = datetime.strptime(t, fmt)
                break
            except ValueError:
                pass
    if when is None:
        raise RecordError("bad_value", f'date "{text}" is not a date (write YYYY-MM-DD or DD/MM/YYYY, optionally '
                                       "with HH:MM)")
    return (when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when).astimezone(timezone.utc)


class _Seating:
    """The game's seats: four players, or two teams seated twice (team A = seats 0 and 2)."""

    def __init__(self, players: list[str] | None, teams: list[str] | None):
        self.team_level = players is None
        if players is not None:
            self.players = players
        else:
            assert teams is not None
            self.players = [teams[0], teams[1], teams[0], teams[1]]
        self.teams = teams

    def seat(self, text: str, what: str) -> int:
        """The seat a dealer/taker cell names: a player's name, or a team (name, A or B) on a team-level sheet."""
        t = _norm(text)
        if not self.team_level:
            for s, p in enumerate(self.players):
                if _norm(p) == t:
                    return s
            if t in ("a", "b"):
                raise RecordError("bad_value", f'{what} "{text}" is a team, but this game names its four players: '
                                  "write the player's name (the lake records a seat)")
            raise RecordError("bad_value", f'{what} "{text}" is not one of the players '
                              f"({', '.join(self.players)})")
        assert self.teams is not None
        for s, name in enumerate(self.teams):
            if _norm(name) == t:
                return s
        if t in ("a", "b"):
            return 0 if t == "a" else 1
        raise RecordError("bad_value", f'{what} "{text}" is not one of the teams ({self.teams[0]}, {self.teams[1]}, '
                          "or A / B)")


def _game_values(game: _Game) -> dict[str, str]:
    """The game-level columns: each may be filled on one row or repeated, never with two different values."""
    out: dict[str, str] = {}
    seen: dict[str, _Row] = {}
    for r in game.rows:
        for col in GAME_COLS:
            v = r.cells.get(col, "").strip()
            if not v:
                continue
            if col in out and _norm(out[col]) != _norm(v):
                first = seen[col]
                raise _RowError(r, RecordError("conflicting_value", f'{col} is "{out[col]}" on line {first.line} but '
                                                                    f'"{v}" on line {r.line} (one value per game)'))
            out.setdefault(col, v)
            seen.setdefault(col, r)
    return out


class _RowError(Exception):
    def __init__(self, row: _Row, err: RecordError):
        super().__init__(str(err))
        self.row, self.err = row, err


def _contract(r: _Row, variant: str, seating: _Seating) -> dict[str, Any]:
    c = r.cells
    taker_cell, strain_cell, bid_cell = c.get("taker", ""), c.get("strain", ""), c.get("bid", "")
    coinche_cell = c.get("coinche", "")
    coinche = _COINCHE.get(_norm(coinche_cell))
    if coinche is None:
        raise RecordError("bad_value", f'coinche "{coinche_cell}" is not 0, 1 (coinche/contre) or 2 '
                                       "(surcoinche/surcontre)")
    if not taker_cell.strip():
        for col, v in (("strain", strain_cell), ("bid", bid_cell)):
            if v.strip():
                raise RecordError("no_taker", f'{col} "{v}" is given but taker is empty (leave the contract empty for '
                                              "a hand nobody took)")
        if coinche:
            raise RecordError("no_taker", "coinche is given but taker is empty")
        return {"taker": None, "strain": None, "bid": None, "capot_bid": False, "coinche": 0}
    taker = seating.seat(taker_cell, "taker")
    strain = _STRAIN_OF.get(_norm(strain_cell))
    if strain is None:
        if not strain_cell.strip():
            raise RecordError("no_strain", "taker is given but strain is empty")
        raise RecordError("bad_value", f'strain "{strain_cell}" is not one of S H D C NT AT (or pique, coeur, '
                                       "carreau, trefle, sans atout, tout atout)")
    bid: int | None = None
    capot = False
    b = _norm(bid_cell)
    if variant == "belote":
        if b:
            raise RecordError("bad_value", f'bid "{bid_cell}" is given, but classic belote has no bid value '
                                           "(leave it empty)")
    elif b == "capot":
        capot = True
    elif not b:
        raise RecordError("no_bid", "taker is given but bid is empty (a number from 80 to 180, or capot)")
    else:
        bid = _int(bid_cell, "bid")
        if not 80 <= bid <= 180:
            raise RecordError("bad_value", f'bid "{bid_cell}" must be a whole number from 80 to 180, or capot')
    return {"taker": taker, "strain": strain, "bid": bid, "capot_bid": capot, "coinche": coinche}


def _check_made(made: str | None, made_cell: str, taker: int | None, score: list[int]) -> None:
    """A ``made`` cell against the hand's two scores (game points, ``[A, B]``). Whatever the house rules, a failed
    contract gives the defenders the larger score (the 162, and in coinche the bid, go to them; the taker's team
    keeps at most its belote), and a made one scores points for the taker's team (at least its bid or its card
    points). A cell saying otherwise contradicts the scores: one of them, or the taker, was written wrong. Raises
    RecordError(made_mismatch).
    ``litige`` and an empty cell are not checked (a litige hand's points are checked with the totals)."""
    if made is None or made == LITIGE or taker is None:
        return
    t = taker % 2
    cols = ("score_a", "score_b")
    mine = f"the taker's team {'AB'[t]} ({cols[t]} {score[t]})"
    theirs = f"team {'AB'[1 - t]} ({cols[1 - t]} {score[1 - t]})"
    if made == FAILED and score[t] >= score[1 - t]:
        raise RecordError("made_mismatch", f'made is "{made_cell.strip()}" (failed) but {mine} scored at least as '
                                           f"much as {theirs}: a failed contract gives the defenders the larger "
                                           "score (is made, the taker or a score written wrong?)")
    if made == MADE and score[t] <= 0:
        raise RecordError("made_mismatch", f'made is "{made_cell.strip()}" (made) but {mine} scored nothing '
                                           f"against {theirs}: a made contract scores points for the taker's team "
                                           "(is made, the taker or a score written wrong?)")


def _hand_fields(r: _Row, variant: str, seating: _Seating) -> dict[str, Any]:
    """What one row says about its hand: the ``hands`` columns it fills (dealer seat or None when left empty),
    plus ``_made`` (what its ``made`` cell says, :func:`_made`; not a lake column). Raises RecordError."""
    c = r.cells
    d = c.get("dealer", "")
    dealer = seating.seat(d, "dealer") if d.strip() else None
    contract = _contract(r, variant, seating)
    made = _made(c.get("made", ""))
    if contract["taker"] is None and made is not None:
        raise RecordError("no_taker", "made is given but taker is empty")
    score = []
    for team, col in (("A", "score_a"), ("B", "score_b")):
        v = c.get(col, "")
        if not v.strip():
            raise RecordError("bad_value", f"team {team} score ({col}) is empty (write 0 for no points)")
        score.append(_int(v, f"team {team} score ({col})"))
    _check_made(made, c.get("made", ""), contract["taker"], score)
    totals = [c.get("total_a", "").strip(), c.get("total_b", "").strip()]
    if any(totals) and not all(totals):
        raise RecordError("bad_value", "give both total_a and total_b, or neither")
    rec_totals = ([_int(totals[0], "team A total (total_a)"), _int(totals[1], "team B total (total_b)")]
                  if all(totals) else None)
    return {"dealer": dealer, **contract, "recorded_score": score, "recorded_totals": rec_totals, "_made": made,
            **_penalties_and_claim(c, seating)}


def _penalties_and_claim(c: dict[str, str], seating: _Seating) -> dict[str, Any]:
    """The optional ``penalties`` cell (items ``kind:who`` separated by ``|``, who written as a dealer cell) and
    ``claim_by`` / ``claim_trick`` cells (who declared out, after how many tricks): ``hands.penalties`` and
    ``hands.claim``. Raises RecordError (bad_penalty, bad_claim)."""
    from pipeline.rules import PENALTY_KINDS
    out: dict[str, Any] = {}
    cell = c.get("penalties", "")
    pens = []
    for item in (x.strip() for x in cell.split("|")):
        if not item:
            continue
        kind, sep, who = item.partition(":")
        kind = _norm(kind).replace(" ", "_").replace("-", "_")
        if not sep or kind not in PENALTY_KINDS:
            raise RecordError("bad_penalty", f'penalty "{item}" is not kind:who with a kind among '
                                             f"{', '.join(PENALTY_KINDS)} (e.g. misdeal:{seating.players[0]})")
        try:
            seat = seating.seat(who, "penalty")
        except RecordError as e:
            raise RecordError("bad_penalty", str(e)) from None
        pens.append({"seat": seat, "kind": kind})
    if pens:
        out["penalties"] = pens
    by, trick = c.get("claim_by", "").strip(), c.get("claim_trick", "").strip()
    if by or trick:
        if not (by and trick):
            raise RecordError("bad_claim", "give both claim_by (who declared out) and claim_trick (after how many "
                                           "tricks), or neither")
        try:
            seat = seating.seat(by, "claim_by")
            n = _int(trick, "claim_trick")
        except RecordError as e:
            raise RecordError("bad_claim", str(e)) from None
        out["claim"] = {"seat": seat, "trick": n}
    return out


def _check_totals(rows: list[_Row], hands: list[dict[str, Any]], made: list[str | None]) -> None:
    """The running totals against the hand scores, in hand order: each written ``total_a``/``total_b`` must be
    the last written totals (0-0 before hand 1) plus the scores of the hands since. The one allowed difference is
    a litige carry-over: after a hand whose ``made`` says ``litige``, a later hand may add more than its score to
    ONE team's total (the held points; their amount is not on the sheet, so it is not checked), once per litige
    run. Raises _RowError(totals_mismatch) at the first row whose totals do not add up (the later totals would
    be checked against a wrong base)."""
    last: list[int] = [0, 0]
    last_hand = 0
    since = [0, 0]
    held = False        # a litige hand since the last carry-over: its points may land in one total later
    for r, h, m in zip(rows, hands, made):
        since = [since[0] + h["recorded_score"][0], since[1] + h["recorded_score"][1]]
        if m == LITIGE:
            held = True
        tot = h["recorded_totals"]
        if tot is None:
            continue
        want = [last[0] + since[0], last[1] + since[1]]
        extra = [tot[0] - want[0], tot[1] - want[1]]
        if extra != [0, 0]:
            carried = held and sorted(extra) == [0, max(extra)] and max(extra) > 0
            if not carried:
                bad = 0 if extra[0] else 1
                col, sc = ("total_a", "score_a") if bad == 0 else ("total_b", "score_b")
                base = (f"hand {last_hand}'s {col} {last[bad]}" if last_hand else "0 before hand 1")
                hands_since = h["hand_no"] - last_hand
                added = (f"hand {h['hand_no']}'s {sc} {h['recorded_score'][bad]}" if hands_since == 1 else
                         f"the {sc} of hands {last_hand + 1}..{h['hand_no']} ({since[bad]})")
                hint = ("" if held else "; if points held by a litige were added here, write litige in the made "
                        "cell of the hand that held them")
                raise _RowError(r, RecordError("totals_mismatch", f"the running totals do not add up: {col} is "
                                               f"{tot[bad]} but {base} + {added} = {want[bad]}{hint}"))
            held = False
        last, last_hand, since = list(tot), h["hand_no"], [0, 0]


def _recorded_winner(final: list[int] | None, target: int | None) -> int | None:
    """The team (0 = A, 1 = B) the sheet's final totals make the winner: the higher total, at or past the
    target. None without a target or final totals, when nobody reached the target (a game stopped early) or
    when the totals are equal."""
    if final is None or target is None or final[0] == final[1] or max(final) < target:
        return None
    return 0 if final[0] > final[1] else 1


def _reject(r: _Row, e: RecordError, path: str, gid: str) -> Reject:
    hn = e.hand_no if e.hand_no is not None else r.hand_no
    return Reject(Provenance(NAME, path, r.line, r.offset), e.code, f"{e} (the whole game is rejected)", r.raw, gid, hn)


def _game_settings(game: _Game) -> dict[str, Any]:
    """The game-level values (source, variant, ruleset, target, seating, played_at). Raises _RowError."""
    first = min(game.rows, key=lambda r: r.line)
    gv = _game_values(game)

    def fail(msg: str, code: str = "bad_value") -> _RowError:
        return _RowError(first, RecordError(code, msg))
    src = gv.get("source", DEFAULT_SOURCE)
    if not _SOURCE_NAME.match(src):
        raise fail(f'source "{src}" must be a plain name (letters, digits, \'.\', \'_\', \'-\')')
    vtext = gv.get("variant", "")
    variant = _VARIANTS.get(_norm(vtext))
    if variant is None:
        raise fail(f'variant "{vtext}" is not belote or coinche (contree)' if vtext
                   else "variant is empty on every row of the game")
    ruleset = gv.get("ruleset")
    if ruleset is not None:
        from pipeline.rules import shipped_names
        if ruleset not in shipped_names():
            raise fail(f'ruleset "{ruleset}" is not a shipped ruleset ({", ".join(shipped_names())})')
    try:
        target = _int(gv["target"], "target") if "target" in gv else None
        played_at = _date(gv["date"]) if "date" in gv else None
    except RecordError as e:
        raise _RowError(first, e) from None
    players = [gv.get(c, "") for c in PLAYER_COLS]
    teams = [gv.get(c, "") for c in TEAM_COLS]
    if any(players) and any(teams):
        raise fail("give either player1..player4 or team_a/team_b, not both")
    if any(players):
        if not all(players):
            missing = [c for c, p in zip(PLAYER_COLS, players) if not p]
            raise fail(f"{', '.join(missing)} empty: give all four players")
        if len({_norm(p) for p in players}) != 4:
            raise fail(f"the four player names must differ, got {', '.join(players)}")
        seating = _Seating(players, None)
    elif all(teams):
        if _norm(teams[0]) == _norm(teams[1]):
            raise fail(f'the two teams are both called "{teams[0]}"')
        seating = _Seating(None, teams)
    else:
        raise fail("no players: fill player1..player4 (or team_a and team_b)", "no_players")
    return {"source": src, "variant": variant, "ruleset": ruleset, "target": target, "seating": seating,
            "first": first, "played_at": played_at}


def _build(game: _Game, path: str) -> GameRecord | list[Reject]:
    """The game's GameRecord, or the rejects of its bad rows (every bad row, each with its line and reason)."""
    src = next((s for s in (r.cells.get("source", "").strip() for r in game.rows) if s), DEFAULT_SOURCE)
    gid = f"{src}:{game.gid}"
    rejects = list(game.failed)
    for rej in rejects:
        rej.game_id = gid
    if not game.rows:
        return rejects
    try:
        st = _game_settings(game)
    except _RowError as e:
        return rejects + [_reject(e.row, e.err, path, gid)]
    rows = sorted(game.rows, key=lambda r: (r.hand_no, r.line))
    fields: dict[int, dict[str, Any]] = {}
    for r in rows:
        try:
            fields[r.line] = _hand_fields(r, st["variant"], st["seating"])
        except RecordError as e:
            rejects.append(_reject(r, e, path, gid))
    for a, b in zip(rows, rows[1:]):
        if a.hand_no == b.hand_no:
            rejects.append(_reject(b, RecordError("duplicate_hand_no", f"hand {b.hand_no} appears twice (lines "
                                                                       f"{a.line} and {b.line})"), path, gid))
    numbers = sorted({r.hand_no for r in rows})
    if not game.failed and numbers != list(range(1, len(numbers) + 1)):
        missing = first_missing(set(numbers), numbers[-1])
        rejects.append(_reject(st["first"], RecordError("missing_hand", f"hands must be numbered 1..n: the game has "
                                                                        f"hands {numbers[0]}..{numbers[-1]}, missing "
                                                                        f"{missing[:10]}", missing[0]), path, gid))
    if rejects:
        rejects.sort(key=lambda x: x.where.line or 0)
        return rejects
    hands: list[dict[str, Any]] = []
    made: list[str | None] = []
    dealer: int | None = None
    for r in rows:
        f = dict(fields[r.line])
        made.append(f.pop("_made"))
        try:
            if f["dealer"] is None:
                if dealer is None:
                    raise RecordError("no_dealer", "dealer is empty on hand 1: write who dealt the first hand (later "
                                                   "hands may be left empty: the deal passes to the next player)")
                f["dealer"] = (dealer + 1) % 4
            dealer = f["dealer"]
            row = new_hand(
                game_id=gid, hand_no=r.hand_no, source=st["source"], source_format=NAME, source_file=path,
                source_line=r.line, source_game_id=game.gid, variant=st["variant"], ruleset_hint=st["ruleset"],
                n_players=4, players=list(st["seating"].players), completeness="summary", **f)
            check_hand(row)
        except RecordError as e:
            return [_reject(r, e, path, gid)]
        hands.append(row)
    try:
        _check_totals(rows, hands, made)
    except _RowError as e:
        return [_reject(e.row, e.err, path, gid)]
    final = hands[-1]["recorded_totals"]
    g = finish_game({
        "game_id": gid, "source": st["source"], "source_format": NAME, "source_file": path,
        "source_game_id": game.gid, "variant": st["variant"], "ruleset_hint": st["ruleset"], "n_players": 4,
        "players": list(st["seating"].players), "target": st["target"], "recorded_final": final,
        "recorded_winner": _recorded_winner(final, st["target"]), "played_at": st["played_at"],
    }, hands)
    first = st["first"]
    return GameRecord(g, hands, Provenance(NAME, path, first.line, first.offset))
