"""Hand and game keys computed many rows at once (pipeline/ingest/sha_keys.py): the same 32 hex digits as
``hashlib.sha256(text).hexdigest()[:32]`` (records.hand_key), compiled (OpenSSL's SHA256 from a numba loop) or
row by row (kernels run as plain Python for small files)."""

import hashlib

import numpy as np
import pyarrow as pa

from pipeline.ingest import kernels, sha_keys

TEXTS = [b"", b"abc", b'[1,"JH",null]', "Gis\u00e8le".encode(), b"x" * 5000, b""]


def _rows(texts):
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum([len(t) for t in texts], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(texts), np.uint8)


def _expected(texts):
    return [hashlib.sha256(t).hexdigest()[:32] for t in texts]


def test_compiled_keys_are_hashlib_s():
    # "abc" -> ba7816bf8f01cfea414140de5dae2223 is FIPS 180-2's SHA-256 example, first 32 hex digits
    assert sha_keys.available(), "OpenSSL's SHA256 should be found on this machine (Python's hashlib uses it)"
    arr, keys = sha_keys.sha32(*_rows(TEXTS))
    assert keys == _expected(TEXTS)
    assert keys[1] == "ba7816bf8f01cfea414140de5dae2223"
    assert arr.type == pa.string() and arr.to_pylist() == keys


def test_plain_python_kernels_give_the_same_keys():
    with kernels.plain_python(True):
        assert not sha_keys.available()
        arr, keys = sha_keys.sha32(*_rows(TEXTS))
    assert keys == _expected(TEXTS) and arr.to_pylist() == keys


def test_no_rows_and_rows_of_an_empty_buffer():
    arr, keys = sha_keys.sha32(np.zeros(1, np.int64), np.zeros(0, np.uint8))
    assert (len(arr), keys) == (0, [])
    arr, keys = sha_keys.sha32(np.zeros(3, np.int64), np.zeros(0, np.uint8))
    assert keys == [hashlib.sha256(b"").hexdigest()[:32]] * 2 == arr.to_pylist()
