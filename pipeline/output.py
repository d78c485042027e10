"""Writing a result table to the terminal or to a file (table, csv, json, parquet)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

from pipeline.terminal import printable

FORMATS = ("table", "csv", "json", "parquet")


def _decimals(values: list) -> int:
    """One number of decimals per column: 4 for a column of rates (every value within -1..1), else 2."""
    nums = [float(v) for v in values if v is not None]
    return 4 if nums and all(abs(v) <= 1 for v in nums) else 2


def _cells(table: pa.Table) -> list[list[str]]:
    """The table's values as text, decimals fixed per column (floats and SQL decimals alike)."""
    cols = []
    for name in table.column_names:
        typ = table.schema.field(name).type
        values = table.column(name).to_pylist()
        if pa.types.is_floating(typ) or pa.types.is_decimal(typ):
            d = _decimals(values)
            cols.append(["" if v is None else f"{float(v):.{d}f}" for v in values])
        else:
            cols.append(["" if v is None else printable(str(v)) for v in values])
    return [list(r) for r in zip(*cols)] if cols else []


def write(table: pa.Table, fmt: str, output: Path | None, console: Console) -> None:
    """Render ``table`` as ``fmt`` to ``output`` (or the console). Raises ValueError for an unknown
    format, or parquet without --output."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        if output is None:
            raise ValueError("--format parquet needs --output FILE")
        pq.write_table(table, output, compression="zstd")
        return
    if fmt == "csv":
        if output is None:
            buf = pa.BufferOutputStream()
            pacsv.write_csv(table, buf)
            console.file.write(buf.getvalue().to_pybytes().decode())
        else:
            pacsv.write_csv(table, output)
        return
    if fmt == "json":
        import orjson
        data = orjson.dumps(table.to_pylist(), option=orjson.OPT_INDENT_2) + b"\n"
        if output is None:
            console.file.write(data.decode())
        else:
            output.write_bytes(data)
        return
    rich_table = Table(show_header=True, header_style="bold")
    for name in table.column_names:
        typ = table.schema.field(name).type
        rich_table.add_column(name, no_wrap=True, justify="right" if pa.types.is_integer(typ)
                              or pa.types.is_floating(typ) or pa.types.is_decimal(typ) else "left")
    for row in _cells(table):
        rich_table.add_row(*row)
    # natural width: never fold or cut cells; a narrow terminal wraps the lines instead
    from rich.measure import Measurement
    wide = Console(file=console.file, width=100_000, highlight=False)
    width = max(Measurement.get(wide, wide.options, rich_table).maximum, 20)
    if output is None:
        Console(file=console.file, width=width, highlight=False, color_system=console.color_system,
                force_terminal=console.is_terminal).print(rich_table)
    else:
        with output.open("w") as f:
            Console(file=f, width=width, highlight=False).print(rich_table)
