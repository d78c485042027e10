"""The compiled key-text writer (pipeline/ingest/json_rows.py) against ``json.dumps``, the row path's writer.

Every expected text is ``json.dumps(fields, separators=(",", ":"))`` of the same values (the text
:func:`pipeline.ingest.records.hand_key` hashes), so the comparison is with the reference itself.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.ingest import json_rows as jr, sha_keys

INT64 = st.integers(min_value=-2**63, max_value=2**63 - 1)
SMALL = st.integers(min_value=-3, max_value=120)
VALUE = st.one_of(SMALL, INT64, st.none())


def _texts(off: np.ndarray, data: np.ndarray) -> list[str]:
    return [bytes(data[off[i]:off[i + 1]]).decode() for i in range(len(off) - 1)]


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(VALUE, st.booleans(), st.one_of(st.none(), st.lists(VALUE, max_size=6)),
                               st.sampled_from(["pass", "110S", "Éric", None]),
                               st.one_of(st.none(), st.lists(st.sampled_from([0, 1, 2]), max_size=4))),
                     min_size=1, max_size=8))
def test_render_is_json_dumps(rows):
    n = len(rows)
    idx = np.arange(n)
    ints = np.array([0 if r[0] is None else r[0] for r in rows], np.int64)
    lists = [r[2] for r in rows]
    off = np.cumsum([0] + [len(x or []) for x in lists])
    vals = np.array([0 if v is None else v for x in lists for v in (x or [])], np.int64)
    vvalid = np.array([v is not None for x in lists for v in (x or [])], bool)
    words = ['{"seat":0,"call":"pass"}', '"x"', "[]"]          # a dictionary of JSON texts
    codes = [r[4] for r in rows]
    coff = np.cumsum([0] + [len(c or []) for c in codes])
    cvals = np.array([c for x in codes for c in (x or [])], np.int64)
    pieces = [jr.ints(idx, ints, np.array([r[0] is not None for r in rows])), jr.bools(idx, [r[1] for r in rows]),
              jr.int_lists(idx, off, vals, np.array([x is not None for x in lists]), vvalid),
              jr.strings(pa.array([r[3] for r in rows], pa.string())),
              jr.text_lists(idx, coff, cvals, words, np.array([c is not None for c in codes])),
              jr.text(np.zeros(n, np.int64), ['"game"'])]
    expected = [json.dumps([r[0], r[1], r[2], r[3], None if r[4] is None else [json.loads(words[c]) for c in r[4]],
                            "game"], separators=(",", ":")) for r in rows]
    off_out, data = jr.render(pieces, n)
    assert _texts(off_out, data) == expected
    assert sha_keys.sha32(off_out, data)[1] == [hashlib.sha256(e.encode()).hexdigest()[:32] for e in expected]


def test_render_reads_through_the_index():
    # two games' texts written for three hands (hand -> game 0, 0, 1), and the hands' own values in reverse
    off, data = jr.render([jr.text(np.array([0, 0, 1]), ['"g1"', '"g2"']),
                           jr.ints(np.array([2, 1, 0]), np.array([7, 8, 9]))], 3)
    assert _texts(off, data) == ['["g1",9]', '["g1",8]', '["g2",7]']
    # an Arrow array of texts (announcements), used as it is
    off, data = jr.render([jr.arrow_texts(pa.array(["null", '[{"seat":1}]']))], 2)
    assert _texts(off, data) == ["[null]", '[[{"seat":1}]]']
