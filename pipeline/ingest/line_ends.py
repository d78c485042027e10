"""Files whose lines end in a carriage return alone (``\\r``, the old Mac OS convention), read as if they ended in
``\\n``.

Every reader cuts its input at ``\\n`` (a ``\\r\\n`` line simply ends in JSON or CSV whitespace), so a CR-only file
reads as one long line: one ``invalid_json`` reject for a whole JSON Lines file. Turning each bare ``\\r`` byte
into ``\\n`` reads it correctly, and safely (a ``\\r\\n`` further on, lines appended on another system, stays one
line end, so line numbers stay those an editor shows):

* a raw CR cannot be part of a JSON value: JSON texts must escape control characters (RFC 8259 §7), so in valid
  JSON a ``\\r`` byte is whitespace between tokens, where ``\\n`` is whitespace too, and the CR ending a line is
  exactly where the line ends;
* in UTF-8 the byte ``0x0D`` is only ever the character CR (the bytes of a multi-byte character are all ``>=
  0x80``), so no character is cut;
* one byte becomes one byte, so every byte offset the rows and rejects record is the offset in the file as stored,
  and line numbers count the lines an editor shows;
* it is what Python's universal newlines (and ``tr '\\r' '\\n'``) do, so a CSV quoted field holding a CR line break
  reads as it would in a text-mode ``open``.

A file is taken as CR-only when its first bytes hold a CR and no ``\\n`` (:func:`cr_only`): a file with ``\\n`` line
ends (or mixed ones) in its head is never translated, whatever CRs it holds.
"""

from __future__ import annotations

import io
import re
from typing import BinaryIO

_SCAN = 1 << 16


def cr_only(head: bytes, fh: BinaryIO | None = None) -> bool:
    """Whether a file's lines end in ``\\r`` alone: ``head`` (the file's first bytes, decompressed) holds a ``\\r``
    and no ``\\n``. When it holds neither, ``fh`` (a binary stream positioned after ``head``, read and not rewound)
    is read on, 64 KiB at a time, until a chunk holds one or the file ends; a ``\\r`` ending the bytes read is
    checked against the next byte (a CR LF). Never raises for the file's content (I/O errors are raised)."""
    data = head
    while True:
        cr, lf = data.find(b"\r"), data.find(b"\n")
        if lf >= 0:                      # a line feed: LF or CR LF line ends (or mixed ones), never translated
            return False
        if cr >= 0:
            # a CR that ends the bytes read may start a CR LF
            return not data.endswith(b"\r") or fh is None or fh.read(1) != b"\n"
        if fh is None:
            return False
        data = fh.read(_SCAN)
        if not data:
            return False


class _CrToLf(io.RawIOBase):
    """A read-only raw stream over ``inner`` giving its bytes with every bare ``\\r`` (one not followed by ``\\n``)
    turned into ``\\n``; a ``\\r\\n`` stays one line end (lines appended to a CR-only file on another system), so
    line numbers stay those an editor shows. It has no ``fileno`` and no ``name``, so readers that would reopen or
    ``pread`` the file itself read this stream."""

    _BARE_CR = re.compile(rb"\r(?!\n)")

    def __init__(self, inner: BinaryIO):
        super().__init__()
        self._inner = inner
        self._next = b""            # the byte read past the last chunk, to see whether its final CR starts a CR LF

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        if not len(buf):
            return 0
        data = self._next + self._inner.read(max(len(buf) - len(self._next), 0))
        self._next = b""
        if data.endswith(b"\r"):
            self._next = self._inner.read(1)
        n = len(data)
        buf[:n] = self._BARE_CR.sub(b"\n", data + self._next)[:n]     # one byte for one byte
        return n

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


def as_lf(fh: BinaryIO) -> io.BufferedReader:
    """``fh`` (a binary stream, plain or decompressing) read with ``\\r`` as the line end: a buffered binary stream
    of the same length whose every bare ``\\r`` byte (not starting a ``\\r\\n``) is ``\\n`` (see the module text
    for why this is safe). Closing it closes ``fh``."""
    return io.BufferedReader(_CrToLf(fh), buffer_size=1 << 20)
