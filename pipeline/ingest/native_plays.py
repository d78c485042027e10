"""Canonical ``plays`` lists of native JSON Lines read as one text each: a third less JSON for pyarrow to parse.

A hand's ``plays`` is a list of 32 ``[seat, card]`` pairs, most of the values pyarrow's JSON reader builds for a
line (each pair is a list holding a number and a text). When a list is written in one of the two usual layouts,

* compact (orjson, ``json.dumps(separators=(",", ":"))``): ``"plays":[[2,"AC"],[3,"JS"]]``
* spaced (``json.dumps`` defaults): ``"plays": [[2, "AC"], [3, "JS"]]``

with one-digit seats and two-character cards (no quote, backslash or space in them), :func:`compact` rewrites
it in place, same length, as a JSON text under the key ``"play\\x7f"``: the list's brackets become quotes and the
cards' quotes become spaces, ``"play\\x7f":"[2, AC ],[3, JS ]"``. pyarrow then reads one short string per hand
and :func:`decode` cuts seats and cards out of it at fixed offsets. Any other spelling of a plays list (other
spacing, a negative or two-digit seat, ``"10C"``, escapes, an empty list) is left alone and read as a list, as
before (:mod:`pipeline.ingest.native_columns`).

Why this is safe: the caller only rewrites lines holding no ``\\x7f`` byte (raw or escaped), so a ``play\\x7f``
key can only come from here; the pattern holds unescaped quotes at fixed places, so it cannot lie inside a JSON
text; a rewritten list anywhere but directly in a hand object is an unknown key there and makes pyarrow refuse
the line (which then takes the row path); and the converter requires, line by line, as many ``play\\x7f``
texts as lists rewritten (:func:`per_row`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KEY = "play\x7f"
"""Key a canonical ``plays`` list is rewritten to (its value: a JSON text)."""

_Q, _SP, _COMMA, _OPEN, _CLOSE = 0x22, 0x20, 0x2C, 0x5B, 0x5D
# (pair length, stride from one pair to the next, offset of the card's opening quote) per layout
_LAYOUTS = ((8, 9, 3), (9, 11, 4))            # [d,"XY"],  and  [d, "XY"],_
_KEYS = (b'"plays":', b'"plays": ')


def _card_byte(b: np.ndarray) -> np.ndarray:
    """Bytes allowed in a two-character card written without escapes: printable ASCII but space, quote,
    backslash, comma, brackets and braces (anything else leaves the list to the list reader)."""
    return ((b > 0x20) & (b < 0x7F) & (b != _Q) & (b != 0x5C) & (b != _COMMA) & (b != _OPEN) & (b != _CLOSE)
            & (b != 0x7B) & (b != 0x7D))


def _windows(a: np.ndarray) -> np.ndarray:
    """The 8 bytes starting at each position of ``a`` as one little-endian ``uint64`` (an unaligned view, no
    copy; the last 7 positions have none)."""
    return np.ndarray(shape=(max(len(a) - 7, 0),), dtype="<u8", buffer=a, strides=(1,))


def _word(pattern: dict[int, int]) -> tuple[np.uint64, np.uint64]:
    """(mask, value) testing the bytes ``{offset: byte}`` of an 8-byte window."""
    mask = value = 0
    for i, b in pattern.items():
        mask |= 0xFF << (8 * i)
        value |= b << (8 * i)
    return np.uint64(mask), np.uint64(value)


# [d,"XY"] (bytes 0-7) and [d, "XY"] (bytes 0-7, the closing bracket at 8)
_COMPACT = _word({0: _OPEN, 2: _COMMA, 3: _Q, 6: _Q, 7: _CLOSE})
_SPACED = _word({0: _OPEN, 2: _COMMA, 3: _SP, 4: _Q, 7: _Q})


def compact(buf: bytearray) -> tuple[np.ndarray, np.ndarray]:
    """Rewrite, in place, every canonical plays list of ``buf`` (see the module text) as a ``play\\x7f`` text.

    Args:
        buf: newline-separated JSON lines holding no ``\\x7f`` byte (the caller checks).
    Returns:
        (positions of the lists rewritten: their opening bracket, now a quote; positions of every ``[`` left
        outside them, for :func:`pipeline.ingest.native_columns.mark_pairs`), both int64 and sorted.
    """
    a = np.frombuffer(buf, np.uint8)
    n = len(a)
    opens = np.flatnonzero(a == _OPEN)
    pi = np.flatnonzero((opens >= 1) & (opens + 10 < n))      # room for every byte read below (up to p + 10)
    p = opens[pi]
    if not p.size:
        return np.zeros(0, np.int64), opens
    w = _windows(a)[p]
    digit = (w >> np.uint64(8)) & np.uint64(0xFF)
    head = (digit >= 0x30) & (digit <= 0x39)
    rewritten, gone = [], []
    for (mask, value), length, stride, q in ((_COMPACT, 8, 9, 3), (_SPACED, 9, 11, 4)):
        good = head & ((w & mask) == value)
        if length == 9:
            good &= a[p + 8] == _CLOSE
        c0 = ((w >> np.uint64(8 * (q + 1))) & np.uint64(0xFF)).astype(np.uint8)
        c1 = ((w >> np.uint64(8 * (q + 2))) & np.uint64(0xFF)).astype(np.uint8)
        good &= _card_byte(c0) & _card_byte(c1)
        ppi = pi[good]
        pp = p[good]
        if not pp.size:
            continue
        after = a[pp + length]
        linked = after == _COMMA
        if stride - length == 2:
            linked &= a[pp + length + 1] == _SP
        linked[:-1] &= pp[1:] == pp[:-1] + stride
        linked[-1] = False
        # runs of linked pairs: a run starts after a pair that is not linked to the next one
        run_start = np.ones(len(pp), bool)
        run_start[1:] = ~linked[:-1]
        first = np.flatnonzero(run_start)
        last = np.append(first[1:] - 1, len(pp) - 1)
        ok = (after[last] == _CLOSE) & (a[pp[first] - 1] == _OPEN)
        key_at = np.full(len(first), -1, np.int64)
        for k in _KEYS:
            at = pp[first] - 1 - len(k)
            hit = ok & (key_at < 0) & (at >= 0)
            safe = np.where(hit, at, 0)
            for i, byte in enumerate(k):
                hit &= a[safe + i] == byte
            key_at[hit] = at[hit]
        ok &= key_at >= 0
        if not ok.any():
            continue
        first, last, key_at = first[ok], last[ok], key_at[ok]
        a[key_at + 5] = 0x7F                         # "plays" -> "play\x7f"
        a[pp[first] - 1] = _Q                        # the list's brackets -> the text's quotes
        a[pp[last] + length] = _Q
        member = np.zeros(len(pp) + 1, np.int8)      # pairs of the rewritten runs (disjoint, in order)
        member[first] = 1
        member[last + 1] -= 1
        member = np.cumsum(member[:-1], dtype=np.int8).astype(bool)
        pm = pp[member]
        a[pm + q] = _SP                              # the cards' quotes -> spaces
        a[pm + q + 3] = _SP
        rewritten.append(pp[first] - 1)
        gone.append(ppi[member])
        gone.append(ppi[first] - 1)                  # the list's own bracket is the [ just before
    if not rewritten:
        return np.zeros(0, np.int64), opens
    keep = np.ones(len(opens), bool)
    for g in gone:
        keep[g] = False
    return np.sort(np.concatenate(rewritten)), opens[keep]


def per_row(positions: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Lists rewritten in each row, for rows ``text[starts[i]:starts[i+1]]`` (int64 per row)."""
    return np.bincount(np.searchsorted(starts, positions, side="right") - 1, minlength=len(starts) - 1)


@dataclass
class Decoded:
    """The pairs of the ``play\\x7f`` texts of some hands, in hand order."""

    offsets: np.ndarray    # int64 per hand + 1: hand h owns pairs offsets[h]:offsets[h+1] (0 pairs if no text)
    seat: np.ndarray       # int64 per pair
    code: np.ndarray       # int64 per pair: the card's two bytes as one big-endian 16-bit number


def decode(offsets: np.ndarray, data: np.ndarray, valid: np.ndarray) -> Decoded:
    """Seats and cards of rewritten plays texts.

    Args:
        offsets: int64 string offsets (hands + 1) into ``data`` (uint8), as pyarrow gives a string column.
        valid: per hand, the text is present.
    Returns:
        :class:`Decoded`; the layout of each text (compact or spaced) is told by its fifth byte (a card byte or
        a space) and its pair count by its length.
    """
    st = offsets[:-1]
    ln = np.where(valid, offsets[1:] - st, 0)
    spaced = np.zeros(len(st), bool)
    live = ln > 4
    spaced[live] = data[st[live] + 4] == _SP
    stride = np.where(spaced, 11, 9)
    q = np.where(spaced, 4, 3)
    count = np.where(live, (ln + stride - 8) // stride, 0)       # compact: 9n - 1 bytes, spaced: 11n - 2
    out = np.zeros(len(st) + 1, np.int64)
    np.cumsum(count, out=out[1:])
    hand = np.repeat(np.arange(len(st)), count)
    k = np.arange(out[-1]) - out[:-1][hand]
    at = st[hand] + k * stride[hand]
    seat = data[at + 1].astype(np.int64) - 0x30
    c = at + q[hand] + 1
    code = (data[c].astype(np.int64) << 8) | data[c + 1]
    return Decoded(out, seat, code)
