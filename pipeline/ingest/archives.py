"""Files packed in a way the ingest does not unpack (zip, xz, bzip2, zstd, 7z, tar, gzip inside gzip): told by
their first bytes, so that they are rejected with what they are instead of being read as text. A stored zip
holds its members' bytes as they are: read as lines, its records would be imported between rejects of binary
lines, some records lost to the zip headers on their lines. The ingest reads plain files and gzip (one or more
members), by content whatever the name."""

from __future__ import annotations

# (first bytes, what the file is, how to unpack it)
_MAGIC = (
    (b"PK\x03\x04", "a zip archive", "unzip"),
    (b"PK\x05\x06", "an empty zip archive", "unzip"),
    (b"\xfd7zXZ\x00", "xz-compressed", "xz -d"),
    (b"BZh", "bzip2-compressed", "bunzip2"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "zstd -d"),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive", "7z x"),
    (b"\x1f\x8b", "gzip-compressed twice (a gzip inside the gzip)", "gunzip"),
)


def packed(head: bytes) -> str | None:
    """The reject reason for a file whose first bytes (decompressed when it is gzip) ``head`` show a packing the
    ingest does not read, else None."""
    kind = next(((what, how) for magic, what, how in _MAGIC if head.startswith(magic)
                 and (magic != b"BZh" or head[4:10] == b"1AY&SY")), None)   # BZh, a level digit, a block
    if kind is None and head[257:262] == b"ustar":
        kind = ("a tar archive", "tar -xf")
    if kind is None:
        return None
    return (f"the file is {kind[0]}: the ingest reads plain text and gzip files; unpack it first ({kind[1]}) and "
            "import what it holds")
