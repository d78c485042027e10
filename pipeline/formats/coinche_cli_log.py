"""The French text log (``server.log``) of sephizack/coinche-cli 0.1.0, parsed into deals for a cross-check.

The log cannot rebuild a deal on its own (no hands, no per-team card points, no belote bonus:
../shared/data/real/coinche-cli/FORMAT.md §3 item 3), so :mod:`pipeline.formats.coinche_cli` reads it only to
check the wire stream against it. This module turns the log into one :class:`LogDeal` per deal, in log order,
and handles the log's own quirks (FORMAT.md §3):

* **round numbers shifted at deal boundaries** (quirk 1): the last ``JOUE`` of trick 8, ``PLI #8`` and
  ``FIN DE MANCHE`` of every deal but the last carry the *next* deal's ``R<n>``, and so does ``REDONNE``.
  Lines are therefore assigned to deals by their order (a deal ends at its ``FIN DE MANCHE`` or
  ``REDONNE``), and ``R<n>`` is only checked: it must be the deal's own number, or the next one on those
  four closing lines;
* **closing calls not logged** (quirk 2): the pass that closes an auction, the 4th pass of a thrown-in deal
  and any surcoinche have no line; the caller compares the logged calls with the stream's ``bid_update``
  calls, which miss the same closing call;
* **player labels** ``<name> (<seat>/<team>)[ (bot: <type>)]`` are parsed from the right, since names may
  hold spaces, hyphens and accents (``Grey Fox``, ``C-17``, ``Élodie``).

Lines of other tables and the lines the format lists without deal content (startup, ``CONNEXION``,
``DECONNEXION`` and the rest) are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) ([A-Z]+) (.*)$")
_TABLE = re.compile(r"^\[([^\]]+)\] (.*)$")
_ROUND = re.compile(r"^R(\d+) (.*)$")
LABEL = re.compile(r"^(.*) \(([NESW])/(NS|EW)\)(?: \(bot: ([^()]*)\))?$")
_ANNONCE = re.compile(r"^ANNONCE (.*) -> (\d+|capot) (\S)$")
_SIMPLE = re.compile(r"^(.*) -> (PASS|COINCHE)$")
_CONTRAT = re.compile(r"^CONTRAT (\d+|capot) (\S) par (.*) \(equipe (NS|EW)\) coinche_level=(\d+)$")
_REDONNE = re.compile(r"^REDONNE \(tout le monde a pass\u00e9\), nouveau donneur (.*)$")
_JOUE = re.compile(r"^JOUE (.*) -> (\S+?)( \((?:belote|rebelote) !\))?$")
_PLI = re.compile(r"^PLI #(\d+) gagne par (.*) \((\d+) pts, (\d+) restants\)$")
_FIN = re.compile(r"^FIN DE MANCHE score_manche NS=(-?\d+) EW=(-?\d+) cumul NS=(-?\d+) EW=(-?\d+)$")
_PARTIE = re.compile(r"^FIN DE PARTIE equipe gagnante=(NS|EW) scores finaux NS=(-?\d+) EW=(-?\d+)$")


class LogError(ValueError):
    """A log line that breaks the format; ``line`` is its 1-based number."""

    def __init__(self, message: str, line: int, raw: str, deal: int | None = None):
        super().__init__(message)
        self.line = line
        self.raw = raw
        self.deal = deal


@dataclass
class Label:
    name: str
    seat: str
    team: str
    bot: str | None


@dataclass
class LogDeal:
    """One deal as the log tells it. Each entry is ``(line, value)`` so a mismatch can name its line."""

    number: int
    first_line: int
    calls: list[tuple[int, tuple]] = field(default_factory=list)   # (seat, 'pass'|'coinche'|(points, glyph))
    contract: tuple[int, tuple] | None = None                       # (points, glyph, seat, level)
    redeal: tuple[int, str] | None = None                           # new dealer seat
    plays: list[tuple[int, tuple]] = field(default_factory=list)    # (seat, card text, 'belote'|'rebelote'|None)
    tricks: list[tuple[int, tuple]] = field(default_factory=list)   # (k, winner seat, points, left)
    score: tuple[int, tuple] | None = None                          # (NS, EW, cumul NS, cumul EW)
    shifted: list[int] = field(default_factory=list)                # lines carrying the next deal's R<n>
    labels: list[tuple[int, Label]] = field(default_factory=list)


@dataclass
class Log:
    table: str | None
    deals: list[LogDeal]
    end: tuple[int, tuple] | None     # (winner team, NS, EW)
    started: str | None = None        # time of the table's first line, 'YYYY-MM-DD HH:MM:SS' (machine time: UTC)


def label(text: str, line: int, raw: str) -> Label:
    m = LABEL.match(text)
    if not m:
        raise LogError(f"player label {text!r} is not '<name> (<seat>/<team>)'", line, raw)
    return Label(m.group(1), m.group(2), m.group(3), m.group(4))


def is_log_head(head: str) -> bool:
    """True when ``head`` looks like a coinche-cli server log (timestamped lines with its own keywords)."""
    first = head.split("\n", 1)[0]
    if not LINE.match(first):
        return False
    return ("INFO Bot Monte Carlo samples:" in head or re.search(r"\] (?:CONNEXION |R\d+ (?:ANNONCE|CONTRAT|JOUE) )",
                                                                head) is not None)


def parse(lines: list[tuple[int, str]], table: str | None = None) -> Log:
    """Parse ``(line number, text)`` pairs of a server log. Only lines of ``table`` are read (the first table
    seen when None). Raises :class:`LogError` for a line of the table that breaks the format."""
    deals: list[LogDeal] = []
    cur: LogDeal | None = None
    end = None
    started = None
    number = 1            # the deal the next deal-level line belongs to
    for lineno, raw in lines:
        text = raw.rstrip("\r\n")
        m = LINE.match(text)
        if not m:
            if text.strip():
                raise LogError("not a '<date> <time> <LEVEL> <message>' line", lineno, raw)
            continue
        t = _TABLE.match(m.group(3))
        if not t:
            continue          # startup lines
        if table is None:
            table = t.group(1)
        if t.group(1) != table:
            continue
        started = started or m.group(1)
        body = t.group(2)
        p = _PARTIE.match(body)
        if p:
            if end is not None:
                raise LogError("a second FIN DE PARTIE", lineno, raw)
            end = (lineno, (p.group(1), int(p.group(2)), int(p.group(3))))
            continue
        r = _ROUND.match(body)
        if not r:
            continue          # CONNEXION, DECONNEXION and the other table-level lines
        if end is not None:
            raise LogError("a deal line after FIN DE PARTIE", lineno, raw, number)
        n, msg = int(r.group(1)), r.group(2)
        if cur is None:
            cur = LogDeal(number, lineno)
            deals.append(cur)
        closing = (msg.startswith("FIN DE MANCHE") or msg.startswith("REDONNE") or msg.startswith("PLI #8 ")
                   or (msg.startswith("JOUE ") and len(cur.plays) == 31))
        if n != number:
            if closing and n == number + 1:
                cur.shifted.append(lineno)      # quirk 1: the server already started the next deal
            else:
                raise LogError(f"round R{n} where R{number} was expected", lineno, raw, number)

        def lab(s: str) -> Label:
            lb = label(s, lineno, raw)
            cur.labels.append((lineno, lb))
            return lb

        if (a := _ANNONCE.match(msg)):
            lb = lab(a.group(1))
            pts = a.group(2) if a.group(2) == "capot" else int(a.group(2))
            cur.calls.append((lineno, (lb.seat, (pts, a.group(3)))))
        elif (c := _CONTRAT.match(msg)):
            lb = lab(c.group(3))
            pts = c.group(1) if c.group(1) == "capot" else int(c.group(1))
            cur.contract = (lineno, (pts, c.group(2), lb.seat, int(c.group(5))))
        elif (j := _JOUE.match(msg)):
            lb = lab(j.group(1))
            ann = None if not j.group(3) else j.group(3).strip(" ()!").strip()
            cur.plays.append((lineno, (lb.seat, j.group(2), ann)))
        elif (k := _PLI.match(msg)):
            lb = lab(k.group(2))
            cur.tricks.append((lineno, (int(k.group(1)), lb.seat, int(k.group(3)), int(k.group(4)))))
        elif (f := _FIN.match(msg)):
            cur.score = (lineno, tuple(int(f.group(i)) for i in range(1, 5)))
            cur, number = None, number + 1
        elif (d := _REDONNE.match(msg)):
            lb = lab(d.group(1))
            cur.redeal = (lineno, lb.seat)
            cur, number = None, number + 1
        elif (s := _SIMPLE.match(msg)):
            lb = lab(s.group(1))
            cur.calls.append((lineno, (lb.seat, s.group(2).lower())))
        else:
            raise LogError(f"unknown deal line {msg[:60]!r}", lineno, raw, number)
    return Log(table, deals, end, started)
