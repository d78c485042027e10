"""Arrow columns to kernel arrays and back (pipeline/rescore/columns.py), and score_batch's own slicing."""

import numpy as np
import pyarrow as pa
import pytest

from pipeline import rules
from pipeline.rescore import columns, engine, score_batch


def test_fixed_list_reads_a_sliced_column_with_nulls():
    # rows: [9 9] | null | [1 2] | [] | [3 4]; sliced from row 1, so positions 1 and 3 are the lists [1 2] and [3 4]
    arr = pa.array([[9, 9], None, [1, 2], [], [3, 4]], type=pa.list_(pa.int8())).slice(1)
    got = columns.fixed_list(arr, np.array([1, 3]), 2, np.int8)
    assert got.dtype == np.int8 and got.tolist() == [[1, 2], [3, 4]]
    chunked = pa.chunked_array([arr.slice(0, 2), arr.slice(2)])
    assert columns.fixed_list(chunked, np.array([3, 1]), 2, np.uint32).tolist() == [[3, 4], [1, 2]]
    assert columns.fixed_list(arr, np.array([], dtype=np.int64), 2, np.int8).shape == (0, 2)


def test_fixed_list_refuses_to_read_past_the_values():
    arr = pa.array([[1, 2], [3]], type=pa.list_(pa.int8()))
    with pytest.raises(IndexError, match="shorter than 2"):
        columns.fixed_list(arr, np.array([1]), 2, np.int8)


def test_strings_take_texts_by_code_with_nulls():
    col = columns.strings(np.array([2, 0, 1, 7]), ["a", "b", "c"], valid=np.array([True, True, True, False]))
    assert col.type == pa.string() and col.to_pylist() == ["c", "a", "b", None]


@pytest.mark.parametrize("ruleset", ["belote-classic", "bulgarian", "libcoinche", "belote-2p", "belote-3p"])
def test_score_batch_internal_slices_give_the_same_rows(ruleset, monkeypatch):
    """score_batch cuts large inputs into CHUNK-row slices; slices of an odd size (37) give the same table."""
    from test_properties import sample
    hands = sample(ruleset)
    r = rules.load(ruleset)
    whole = score_batch(hands, r)
    monkeypatch.setattr(engine, "CHUNK", 37)
    assert hands.num_rows > 37
    assert score_batch(hands, r).equals(whole)
