"""Arrow schemas of every table, built from the TOML files in ``schemas/``.

``schemas/<table>.toml`` is the one source of truth: each field's name, type, nullability and doc.
:func:`schema` turns it into a :class:`pyarrow.Schema` whose field metadata carries the doc, and whose
schema metadata carries the table name and version. Writers call :func:`conform` so that every table
written matches its schema exactly (types, order, nullability).

Type grammar: ``int8 int16 int32 int64 uint32 float64 bool string timestamp``, ``list<T>``,
``struct<name: T, ...>``.
"""

from __future__ import annotations

import functools
import tomllib

import pyarrow as pa

from pipeline.catalog import ALL_TABLES, BOOKKEEPING, TABLES  # noqa: F401  (re-exported: schema.TABLES ...)
from pipeline.resources import resource_dir

_PRIMITIVES = {
    "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "uint32": pa.uint32(), "float64": pa.float64(), "bool": pa.bool_(), "string": pa.string(),
    "timestamp": pa.timestamp("us", tz="UTC"),
}


class SchemaError(ValueError):
    """A schema file that does not follow the grammar, or a table that does not fit its schema."""


def _split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_type(text: str) -> pa.DataType:
    """Parse a type string of the grammar above into a pyarrow type. Raises :class:`SchemaError`."""
    t = text.strip()
    if t in _PRIMITIVES:
        return _PRIMITIVES[t]
    if t.startswith("list<") and t.endswith(">"):
        return pa.list_(parse_type(t[5:-1]))
    if t.startswith("struct<") and t.endswith(">"):
        fields = []
        for part in _split_top(t[7:-1]):
            name, _, sub = part.partition(":")
            if not sub:
                raise SchemaError(f"struct member {part!r} has no type")
            fields.append(pa.field(name.strip(), parse_type(sub)))
        return pa.struct(fields)
    raise SchemaError(f"unknown type {text!r}")


@functools.cache
def _spec(table: str) -> dict:
    path = resource_dir("schemas") / f"{table}.toml"
    if not path.exists():
        raise SchemaError(f"no schema file for table {table!r} ({path})")
    with path.open("rb") as f:
        return tomllib.load(f)


@functools.cache
def schema(table: str) -> pa.Schema:
    """The Arrow schema of ``table`` (one of :data:`TABLES`), with docs as field metadata."""
    spec = _spec(table)
    fields = [
        pa.field(f["name"], parse_type(f["type"]), nullable=f.get("nullable", True),
                 metadata={"doc": f.get("doc", "")})
        for f in spec["fields"]
    ]
    return pa.schema(fields, metadata={"table": table, "version": str(spec["version"])})


def partition_columns(table: str) -> list[str]:
    """Hive partition columns of ``table`` as declared in its schema file."""
    return list(_spec(table).get("partition_by", []))


def version(table: str) -> int:
    """Schema version of ``table``."""
    return int(_spec(table)["version"])


def field_docs(table: str) -> list[tuple[str, str, bool, str]]:
    """(name, type string, nullable, doc) of every field, for generated documentation."""
    return [(f["name"], f["type"], f.get("nullable", True), f.get("doc", "")) for f in _spec(table)["fields"]]


def conform(table: str, data: pa.Table) -> pa.Table:
    """Return ``data`` with exactly ``table``'s schema: columns in order, cast to the declared types.

    Raises :class:`SchemaError` naming missing or extra columns, or a null in a non-nullable column.
    """
    sch = schema(table)
    missing = [n for n in sch.names if n not in data.column_names]
    extra = [n for n in data.column_names if n not in sch.names]
    if missing or extra:
        raise SchemaError(f"table {table!r}: missing columns {missing}, unexpected columns {extra}")
    cols = []
    for f in sch:
        col = data.column(f.name)
        if not f.nullable and col.null_count:
            raise SchemaError(f"table {table!r}: column {f.name!r} has {col.null_count} null(s) but is not nullable")
        cols.append(col.cast(f.type) if col.type != f.type else col)
    return pa.Table.from_arrays(cols, schema=sch)


def empty(table: str) -> pa.Table:
    """An empty table with ``table``'s schema."""
    # not Schema.empty_table(), whose array conversion imports pandas (a large share of every `rebelote stats` start-up)
    return pa.Table.from_batches([], schema=schema(table))


def markdown(table: str | None = None) -> str:
    """Documentation of every table (or one), generated from the schema files (``docs/tables.md``)."""
    out = ["# Lake tables", "",
           "Generated from `schemas/*.toml` by `rebelote schema --markdown`; do not edit by hand.", ""]
    for t in ([table] if table else ALL_TABLES):
        spec = _spec(t)
        parts = ", ".join(spec.get("partition_by", [])) or "none"
        out += [f"## `{t}` (version {spec['version']}, partitioned by: {parts})", "",
                "| column | type | nullable | meaning |", "|---|---|---|---|"]
        for name, typ, nullable, doc in field_docs(t):
            out.append(f"| `{name}` | `{typ}` | {'yes' if nullable else 'no'} | {doc.replace('|', '/')} |")
        out.append("")
    return "\n".join(out)


_INT_RANGES = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
               "int64": (-2**63, 2**63 - 1), "uint32": (0, 2**32 - 1)}


def _check_value(value, typ: pa.DataType, where: str) -> str | None:
    """Why ``value`` cannot be stored as ``typ`` (None when it can)."""
    if value is None:
        return None
    if pa.types.is_boolean(typ):
        return None if isinstance(value, bool) else f"{where} must be true or false, got {value!r}"
    if pa.types.is_integer(typ):
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{where} must be a whole number, got {value!r}"
        lo, hi = _INT_RANGES[str(typ)]
        return None if lo <= value <= hi else f"{where} = {value} is out of range for {typ}"
    if pa.types.is_string(typ):
        return None if isinstance(value, str) else f"{where} must be text, got {value!r}"
    if pa.types.is_list(typ):
        if not isinstance(value, list):
            return f"{where} must be a list, got {value!r}"
        vt = typ.value_type
        if pa.types.is_integer(vt) and value:      # fast path for the long lists of cards and seats
            lo, hi = _INT_RANGES[str(vt)]
            if all(type(v) is int for v in value) and lo <= min(value) and max(value) <= hi:
                return None
        for i, v in enumerate(value):
            err = _check_value(v, typ.value_type, f"{where}[{i}]")
            if err:
                return err
        return None
    if pa.types.is_struct(typ):
        if not isinstance(value, dict):
            return f"{where} must be an object, got {value!r}"
        for f in typ:
            err = _check_value(value.get(f.name), f.type, f"{where}.{f.name}")
            if err:
                return err
        return None
    return None


def _compile(typ: pa.DataType, nullable: bool = True):
    """A checker for one type, built once: value -> None when it fits, else a reason (where is filled in)."""
    if pa.types.is_integer(typ):
        lo, hi = _INT_RANGES[str(typ)]

        def check_int(v, where):
            if v is None:
                return None
            if type(v) is not int:
                return f"{where} must be a whole number, got {v!r}"
            return None if lo <= v <= hi else f"{where} = {v} is out of range for {typ}"
        return check_int
    if pa.types.is_list(typ):
        inner = _compile(typ.value_type)
        vt = typ.value_type
        int_range = _INT_RANGES.get(str(vt)) if pa.types.is_integer(vt) else None

        def check_list(v, where):
            if v is None:
                return None
            if not isinstance(v, list):
                return f"{where} must be a list, got {v!r}"
            if int_range and v and all(type(x) is int for x in v) and int_range[0] <= min(v) and max(v) <= int_range[1]:
                return None
            for i, x in enumerate(v):
                err = inner(x, f"{where}[{i}]")
                if err:
                    return err
            return None
        return check_list
    if pa.types.is_struct(typ):
        members = [(f.name, _compile(f.type)) for f in typ]

        def check_struct(v, where):
            if v is None:
                return None
            if not isinstance(v, dict):
                return f"{where} must be an object, got {v!r}"
            for name, chk in members:
                err = chk(v.get(name), f"{where}.{name}")
                if err:
                    return err
            return None
        return check_struct
    return lambda v, where: _check_value(v, typ, where)


@functools.cache
def _row_checkers(table: str):
    return [(f.name, f.nullable, _compile(f.type)) for f in schema(table)]


def check_row(table: str, row: dict, skip: tuple[str, ...] = ()) -> str | None:
    """Why a row (dict) does not fit ``table``'s schema: a wrong type, an out-of-range number, a null in a
    non-nullable column. None when it fits. Used by the ingest driver on every record of every reader, with
    ``skip`` naming the columns it fills itself (the content keys)."""
    for name, nullable, chk in _row_checkers(table):
        if name not in row or name in skip:
            continue
        v = row[name]
        if v is None:
            if not nullable:
                return f"{name} is missing"
            continue
        err = chk(v, name)
        if err:
            return err
    return None
