"""Canonical ``plays`` lists of native JSON Lines read as one text each: a third less JSON for pyarrow to parse.

A hand's ``plays`` is a list of 32 ``[seat, card]`` pairs, most of the values pyarrow's JSON reader builds for a
line (each pair is a list holding a number and a text). When a list is written in one of the two usual layouts,

* compact (orjson, ``json.dumps(separators=(",", ":"))``): ``"plays":[[2,"AC"],[3,"JS"]]``
* spaced (``json.dumps`` defaults): ``"plays": [[2, "AC"], [3, "JS"]]``

with one-digit seats and two-character cards (no quote, backslash or space in them), :func:`compact` rewrites
it in place, same length, as a JSON text under the key ``"play\\x7f"``: the list's brackets become quotes and the
cards' quotes become spaces, ``"play\\x7f":"[2, AC ],[3, JS ]"``. :func:`take_plays` then cuts seats and cards
out of each text at fixed offsets (:func:`decode`) and replaces the text by its ordinal in the block followed by
spaces, ``"play\\x7f":0               ``: pyarrow reads one integer per hand and skips the spaces, a third faster
than reading and copying the texts. Any other spelling of a plays list (other
spacing, a negative or two-digit seat, ``"10C"``, escapes, an empty list) is left alone and read as a list, as
before (:mod:`pipeline.ingest.native_columns`).

Why this is safe: the caller only rewrites lines holding no ``\\x7f`` byte (raw or escaped), so a ``play\\x7f``
key can only come from here; the pattern holds unescaped quotes at fixed places, so it cannot lie inside a JSON
text; a rewritten list anywhere but directly in a hand object is an unknown key there and makes pyarrow refuse
the line (which then takes the row path); and the converter requires, line by line, as many ``play\\x7f``
ordinals as lists rewritten (:func:`per_row`), each the line's own, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.ingest import kernels
from pipeline.jit import njit

KEY = "play\x7f"
"""Key a canonical ``plays`` list is rewritten to (its value: a JSON text)."""
HANDS_KEY = "hand\x7f"
"""Key a canonical ``hands`` list (the cards dealt to each seat) is rewritten to (its value: a JSON text)."""

_Q, _SP, _COMMA, _OPEN, _CLOSE = 0x22, 0x20, 0x2C, 0x5B, 0x5D
_KEYS = (b'"plays":', b'"plays": ')


def _card_byte(b: np.ndarray) -> np.ndarray:
    """Bytes allowed in a two-character card written without escapes: printable ASCII but space, quote,
    backslash, comma, brackets and braces (anything else leaves the list to the list reader)."""
    return ((b > 0x20) & (b < 0x7F) & (b != _Q) & (b != 0x5C) & (b != _COMMA) & (b != _OPEN) & (b != _CLOSE)
            & (b != 0x7B) & (b != 0x7D))


_CARD_OK = _card_byte(np.arange(256, dtype=np.uint16))
""":func:`_card_byte` of every byte value (the kernels' lookup table)."""
_PLAYS_KEYS = tuple(np.frombuffer(k, np.uint8).copy() for k in _KEYS)
_HANDS_KEYS = tuple(np.frombuffer(k, np.uint8).copy() for k in (b'"hands":', b'"hands": '))


def opening_brackets(buf: bytearray) -> np.ndarray:
    """Positions (int64, sorted) of every ``[`` of ``buf``."""
    return np.flatnonzero(np.frombuffer(buf, np.uint8) == _OPEN)


def compact(buf: bytearray, opens: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rewrite, in place, every canonical plays list of ``buf`` (see the module text) as a ``play\\x7f`` text.

    Args:
        buf: newline-separated JSON lines holding no ``\\x7f`` byte (the caller checks).
        opens: the positions of every ``[`` of ``buf`` (:func:`opening_brackets`; computed when None).
    Returns:
        (positions of the lists rewritten: their opening bracket, now a quote; positions of every ``[`` left
        outside them, for :func:`compact_hands` and :func:`pipeline.ingest.native_columns.mark_pairs`;
        positions of the rewritten texts' closing quotes), int64, sorted.
    """
    if opens is None:
        opens = opening_brackets(buf)
    a = np.frombuffer(buf, np.uint8)
    if not len(opens):
        return np.zeros(0, np.int64), opens, np.zeros(0, np.int64)
    rewritten, ends, keep = kernels.call(_compact_plays, a, opens, _CARD_OK, _PLAYS_KEYS[0], _PLAYS_KEYS[1])
    return rewritten, opens[keep], ends


@njit(cache=True, nogil=True)
def _at(a, pos, key) -> bool:
    """Whether ``a`` holds ``key`` at ``pos`` (False when it does not fit)."""
    if pos < 0 or pos + len(key) > len(a):
        return False
    for k in range(len(key)):
        if a[pos + k] != key[k]:
            return False
    return True


@njit(cache=True, nogil=True)
def _compact_plays(a, opens, card_ok, key0, key1):
    """Kernel of :func:`compact`: (rewritten list positions, sorted; their closing quotes; mask of ``opens`` to
    keep).

    A pair ``[d,"XY"]`` (layout 0, stride 9) or ``[d, "XY"]`` (layout 1, stride 11) starts at each ``[`` whose
    bytes match; consecutive pairs of one layout, each followed by its separator and the next pair exactly
    one stride later, form a run; a run preceded by ``[`` and a ``"plays":`` key (either spacing) and followed
    by ``]`` is rewritten."""
    n, m = len(a), len(opens)
    good = np.zeros((2, m), np.bool_)
    for i in range(m):
        p = opens[i]
        if p < 1 or p + 10 >= n or a[p + 1] < 0x30 or a[p + 1] > 0x39 or a[p + 2] != 0x2C:
            continue
        if a[p + 3] == 0x22 and a[p + 6] == 0x22 and a[p + 7] == 0x5D and card_ok[a[p + 4]] and card_ok[a[p + 5]]:
            good[0, i] = True
        if (a[p + 3] == 0x20 and a[p + 4] == 0x22 and a[p + 7] == 0x22 and a[p + 8] == 0x5D
                and card_ok[a[p + 5]] and card_ok[a[p + 6]]):
            good[1, i] = True
    keep = np.ones(m, np.bool_)
    out = np.empty(m, np.int64)
    ends = np.empty(m, np.int64)
    k = 0
    for lay in range(2):
        length, stride, q = 8 + lay, 9 + 2 * lay, 3 + lay
        i = 0
        while i < m:
            if not good[lay, i]:
                i += 1
                continue
            first = i
            j = i
            while True:                      # extend the run while the pair is linked to the next one
                pj = opens[j]
                linked = a[pj + length] == 0x2C and (lay == 0 or a[pj + length + 1] == 0x20)
                if linked and j + 1 < m and good[lay, j + 1] and opens[j + 1] == pj + stride:
                    j += 1
                    continue
                break
            last = j
            i = last + 1
            pf, pl = opens[first], opens[last]
            if a[pl + length] != 0x5D or a[pf - 1] != 0x5B:
                continue
            key_at = -1
            if _at(a, pf - 1 - len(key0), key0):
                key_at = pf - 1 - len(key0)
            elif _at(a, pf - 1 - len(key1), key1):
                key_at = pf - 1 - len(key1)
            if key_at < 0:
                continue
            a[key_at + 5] = 0x7F                 # "plays" -> "play\x7f"
            a[pf - 1] = 0x22                     # the list's brackets -> the text's quotes
            a[pl + length] = 0x22
            for t in range(first, last + 1):     # the cards' quotes -> spaces
                pt = opens[t]
                a[pt + q] = 0x20
                a[pt + q + 3] = 0x20
                keep[t] = False
            if first > 0 and opens[first - 1] == pf - 1:
                keep[first - 1] = False          # the list's own bracket is the [ just before
            out[k] = pf - 1
            ends[k] = pl + length
            k += 1
    order = np.argsort(out[:k])
    return out[:k][order], ends[:k][order], keep


def compact_hands(buf: bytearray, opens: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rewrite, in place, every canonical ``hands`` list of ``buf`` (the cards dealt to each seat) as a
    ``hand\\x7f`` text, as :func:`compact` does for plays: ``"hands":[["8C","JC"],["TC"]]`` becomes
    ``"hand\\x7f":"[ 8C , JC ],[ TC ]"`` (the outer brackets become quotes, the cards' quotes spaces; same
    length). Canonical: the compact layout or the spaced one (``"hands": [["8C", "JC"], ["TC"]]``) throughout,
    at least one seat, every seat's list non-empty, every card two bytes allowed by :func:`_card_byte`.
    Anything else is left as a list.

    About 32 of the ~70 values pyarrow's JSON reader builds for a hand are its dealt cards: reading them as one
    text makes the parse a quarter faster. The safety argument of the module text holds as for plays: the
    pattern's quotes are unescaped, the key exists only here, a rewritten list anywhere but in a hand is an
    unknown key, and the converter counts the texts of each line.

    Args:
        buf: newline-separated JSON lines holding no ``\\x7f`` byte.
        opens: sorted positions of the ``[`` of ``buf`` that may open a list (:func:`compact`'s second result).
    Returns:
        (positions of the lists rewritten, their opening bracket now a quote; ``opens`` without the brackets
        of those lists; the rewritten texts' closing quotes), int64 and sorted.
    """
    if not len(opens):
        return np.zeros(0, np.int64), opens, np.zeros(0, np.int64)
    rewritten, ends, keep = kernels.call(_compact_hands, np.frombuffer(buf, np.uint8), opens, _CARD_OK,
                                         _HANDS_KEYS[0], _HANDS_KEYS[1])
    return rewritten, opens[keep], ends


@njit(cache=True, nogil=True)
def _walk_hands(a, p, sep, card_ok, write) -> int:
    """Walk the list of card lists whose ``[`` is at ``p`` (separators of ``sep`` bytes: ``,`` or ``, ``): the
    position of its closing ``]``, or -1 when it is not canonical. With ``write``, the cards' quotes become
    spaces on the way."""
    n = len(a)
    q = p + 2                                    # the opening quote of the current card
    while True:
        if q + 7 >= n or a[q] != 0x22 or a[q + 3] != 0x22 or not card_ok[a[q + 1]] or not card_ok[a[q + 2]]:
            return -1
        if write:
            a[q] = 0x20
            a[q + 3] = 0x20
        nx, after = a[q + 4], a[q + 5]
        if nx == 0x2C and (sep == 1 or after == 0x20):
            q += 4 + sep                         # the next card of this seat
        elif nx == 0x5D and after == 0x2C and (sep == 1 or a[q + 6] == 0x20) and a[q + 5 + sep] == 0x5B:
            q += 6 + sep                         # the first card of the next seat
        elif nx == 0x5D and after == 0x5D:
            return q + 5
        else:
            return -1


@njit(cache=True, nogil=True)
def _compact_hands(a, opens, card_ok, key0, key1):
    """Kernel of :func:`compact_hands`: (rewritten list positions, sorted; their closing quotes; mask of
    ``opens`` to keep)."""
    m = len(opens)
    keep = np.ones(m, np.bool_)
    out = np.empty(m, np.int64)
    ends = np.empty(m, np.int64)
    k = 0
    for i in range(m):
        p = opens[i]
        if p + 2 >= len(a) or a[p + 1] != 0x5B or a[p + 2] != 0x22:
            continue
        if _at(a, p - len(key0), key0):
            key_at, sep = p - len(key0), 1
        elif _at(a, p - len(key1), key1):
            key_at, sep = p - len(key1), 2
        else:
            continue
        end = _walk_hands(a, p, sep, card_ok, False)
        if end < 0:
            continue
        _walk_hands(a, p, sep, card_ok, True)
        a[key_at + 5] = 0x7F                     # "hands" -> "hand\x7f"
        a[p] = 0x22                              # the outer brackets -> the text's quotes
        a[end] = 0x22
        t = i
        while t < m and opens[t] <= end:         # this list's brackets are not pair openings
            keep[t] = False
            t += 1
        out[k] = p
        ends[k] = end
        k += 1
    return out[:k], ends[:k], keep


def mark_null_lists(buf: bytearray) -> None:
    """Rewrite, in place, every ``"plays":null`` and ``"hands":null`` (any JSON whitespace around the colon) of
    ``buf`` as ``"play\\x7f":null`` and ``"hand\\x7f":null`` (same length): the keys :func:`compact` and
    :func:`compact_hands` give a list read as a text.

    Why: a key written twice in one object is read by the row path (``json.loads``) with its last value. A hand
    whose ``plays`` (or ``hands``) is a canonical list, rewritten as a ``play\\x7f`` text, and then ``null``
    under its own name again, held two different keys for pyarrow: the converter read the text where the row
    path reads null (and rejects the hand). Under the text's key, the null makes pyarrow refuse the line ("specified
    twice") and the row path reads it; a null alone reads as null as before, and a key the schema does not hold
    where it stands (game level, contract) was refused already.

    Args:
        buf: newline-separated JSON lines holding no ``\\x7f`` byte (the caller checks).
    """
    kernels.call(_mark_null_lists, np.frombuffer(buf, np.uint8), _NULL_STEP[0], _NULL_STEP[1])


def _null_step() -> tuple[np.ndarray, np.ndarray]:
    """Per word, ``plays`` then ``hands``: byte -> its index in the word, -1 if absent (int64 [256]). Each word has
    5 distinct letters, so one of them lies at every position divisible by 5 that the word covers."""
    steps = (np.full(256, -1, np.int64), np.full(256, -1, np.int64))
    for step, word in zip(steps, (b"plays", b"hands")):
        for i, c in enumerate(word):
            step[c] = i
    return steps


_NULL_STEP = _null_step()


@njit(cache=True, nogil=True)
def _mark_null_lists(a, plays_step, hands_step):
    """Kernel of :func:`mark_null_lists`: looks only at every fifth byte (see :func:`_null_step`)."""
    n = len(a)
    for i in range(0, n, 5):
        for w in range(2):
            step = plays_step if w == 0 else hands_step
            o = step[a[i]]
            if o < 0:
                continue
            p = i - o - 1                        # the key's opening quote
            if p < 1 or p + 7 > n or a[p] != 0x22 or a[p + 6] != 0x22:
                continue
            b = p - 1                            # an odd run of backslashes before it: an escaped quote
            while b >= 0 and a[b] == 0x5C:
                b -= 1
            if (p - 1 - b) % 2 == 1:
                continue
            same = True
            for k in range(5):
                if step[a[p + 1 + k]] != k:
                    same = False
                    break
            if not same:
                continue
            v = p + 7                            # JSON whitespace, the colon, whitespace, then null
            while v < n and (a[v] == 0x20 or a[v] == 0x09 or a[v] == 0x0D or a[v] == 0x0A):
                v += 1
            if v >= n or a[v] != 0x3A:
                continue
            v += 1
            while v < n and (a[v] == 0x20 or a[v] == 0x09 or a[v] == 0x0D or a[v] == 0x0A):
                v += 1
            if (v + 4 <= n and a[v] == 0x6E and a[v + 1] == 0x75 and a[v + 2] == 0x6C and a[v + 3] == 0x6C):
                a[p + 5] = 0x7F                  # "plays" -> "play\x7f", "hands" -> "hand\x7f"


@dataclass
class DecodedHands:
    """The seats' cards of the ``hand\\x7f`` texts of some hands, in hand order."""

    offsets: np.ndarray        # int64 per hand + 1: hand h owns seat lists offsets[h]:offsets[h+1] (none: no text)
    card_offsets: np.ndarray   # int64 per seat list + 1, into code
    code: np.ndarray           # int64 per card: its two bytes as one big-endian 16-bit number
    ok: np.ndarray             # per hand: the text has the shape compact_hands writes


def decode_hands(offsets: np.ndarray, data: np.ndarray, valid: np.ndarray) -> DecodedHands:
    """Seat lists and cards of rewritten ``hands`` texts (see :func:`compact_hands`).

    Args:
        offsets: int64 string offsets (hands + 1) into ``data`` (uint8), as pyarrow gives a string column.
        valid: per hand, the text is present.
    Returns:
        :class:`DecodedHands`. A text is spaced when its byte 7 is a space (a card byte or ``[`` otherwise);
        a seat list ``[ XY , XY ]`` has its j-th card at byte 2 + 5j (compact) or 2 + 6j (spaced) and ends at
        the ``]`` following a card. ``ok`` is False for a text that does not have that shape (none that
        :func:`compact_hands` wrote).
    """
    offsets = np.asarray(offsets, np.int64)
    hand_off, card_off, code, ok = kernels.call(_decode_hands, offsets[:-1], offsets[1:], data,
                                                np.asarray(valid, np.bool_))
    return DecodedHands(hand_off, card_off, code, ok)


@njit(cache=True, nogil=True)
def _decode_hands(starts, ends, data, valid):
    """Kernel of :func:`decode_hands`: text ``h`` is ``data[starts[h]:ends[h]]``."""
    n = len(starts)
    size = 0
    for h in range(n):
        if valid[h]:
            size += ends[h] - starts[h]
    hand_off = np.zeros(n + 1, np.int64)
    card_off = np.zeros(size // 5 + 2, np.int64)
    code = np.zeros(size // 5 + 1, np.int64)
    ok = np.ones(n, np.bool_)
    li = 0
    ci = 0
    for h in range(n):
        if valid[h]:
            a, b = starts[h], ends[h]
            spaced = b - a > 7 and data[a + 7] == 0x20
            stride = 6 if spaced else 5
            t = a                                # the [ of the current seat list
            while ok[h]:
                if t + 5 >= b + 1 or data[t] != 0x5B:
                    ok[h] = False
                    break
                c = t + 2                        # its current card
                while c + 3 < b and data[c + 3] == 0x2C:
                    code[ci] = (np.int64(data[c]) << 8) | data[c + 1]
                    ci += 1
                    c += stride
                if c + 3 >= b or data[c + 3] != 0x5D:
                    ok[h] = False
                    break
                code[ci] = (np.int64(data[c]) << 8) | data[c + 1]
                ci += 1
                li += 1
                card_off[li] = ci
                t = c + 4                        # after the ]: the end, or ',' (', ') and the next [
                if t == b:
                    break
                t += 2 if spaced else 1
        hand_off[h + 1] = li
    return hand_off, card_off[:li + 1], code[:ci], ok


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
        offsets: int64 string offsets (texts + 1) into ``data`` (uint8), as a string column gives them.
        valid: per text, the text is present.
    Returns:
        :class:`Decoded`; the layout of each text (compact or spaced) is told by its fifth byte (a card byte or
        a space) and its pair count by its length.
    """
    offsets = np.asarray(offsets, np.int64)
    return Decoded(*kernels.call(_decode_plays, offsets[:-1], offsets[1:], data, np.asarray(valid, np.bool_)))


@njit(cache=True, nogil=True)
def _decode_plays(starts, ends, data, valid):
    """Kernel of :func:`decode`: text ``h`` is ``data[starts[h]:ends[h]]``."""
    n = len(starts)
    out = np.zeros(n + 1, np.int64)
    for h in range(n):                          # pairs per text: compact 9n - 1 bytes, spaced 11n - 2
        ln = ends[h] - starts[h] if valid[h] else 0
        count = 0
        if ln > 4:
            stride = 11 if data[starts[h] + 4] == 0x20 else 9
            count = (ln + stride - 8) // stride
        out[h + 1] = out[h] + count
    seat = np.empty(out[n], np.int64)
    code = np.empty(out[n], np.int64)
    for h in range(n):
        if out[h + 1] == out[h]:
            continue
        st = starts[h]
        spaced = data[st + 4] == 0x20
        stride = 11 if spaced else 9
        c = st + (5 if spaced else 4)           # the card's first byte
        for k in range(out[h], out[h + 1]):
            at = st + (k - out[h]) * stride
            seat[k] = np.int64(data[at + 1]) - 0x30
            code[k] = (np.int64(data[c]) << 8) | data[c + 1]
            c += stride
    return out, seat, code


def take_plays(buf: bytearray, rewritten: np.ndarray, ends: np.ndarray) -> Decoded:
    """Decode the plays texts :func:`compact` wrote from ``rewritten`` to ``ends`` (their quotes), then replace
    each by its ordinal (:func:`blank`): the k-th text's pairs are ``offsets[k]:offsets[k+1]`` of the result."""
    a = np.frombuffer(buf, np.uint8)
    dec = Decoded(*kernels.call(_decode_plays, rewritten + 1, ends, a, np.ones(len(rewritten), np.bool_)))
    blank(buf, rewritten, ends)
    return dec


def take_hands(buf: bytearray, rewritten: np.ndarray, ends: np.ndarray) -> "DecodedHands":
    """:func:`take_plays` for the dealt-hands texts :func:`compact_hands` wrote from ``rewritten`` to ``ends``."""
    a = np.frombuffer(buf, np.uint8)
    dec = DecodedHands(*kernels.call(_decode_hands, rewritten + 1, ends, a, np.ones(len(rewritten), np.bool_)))
    blank(buf, rewritten, ends)
    return dec


def blank(buf: bytearray, quotes: np.ndarray, ends: np.ndarray) -> None:
    """Replace, in place, the k-th rewritten text (from its opening quote ``quotes[k]`` to its closing quote
    ``ends[k]``, both included) by the JSON number ``k`` followed by spaces (same length).

    Why: the text was decoded already (:func:`take_plays`), and pyarrow skips spaces faster than it reads and
    copies a text: the parse of a block takes a third less time. The number tells the converter which decoded
    text a hand holds (:func:`pipeline.ingest.native_columns.convert` checks that the texts of each line are
    its own, in order). A number that does not fit its text (over 10^7 texts in one block) is not written: the
    text stays, the schema's integer type makes pyarrow refuse the line, and the row path reads it."""
    kernels.call(_blank, np.frombuffer(buf, np.uint8), quotes, ends)


@njit(cache=True, nogil=True)
def _blank(a, quotes, ends):
    for k in range(len(quotes)):
        p, e = quotes[k], ends[k]
        digits = 1
        v = k
        while v >= 10:
            v //= 10
            digits += 1
        if digits > e - p + 1:
            continue
        v = k
        for d in range(digits - 1, -1, -1):
            a[p + d] = 0x30 + v % 10
            v //= 10
        for q in range(p + digits, e + 1):      # (a loop: the plain Python kernel works on a bytearray)
            a[q] = 0x20
