"""Writing a result table to the terminal or to a file (table, csv, json, parquet)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from rich.console import Console
from rich.table import Table

FORMATS = ("table", "csv", "json", "parquet")


def _num(v: float) -> str:
    """Rates (below 1) with 4 decimals, other numbers with 2."""
    return f"{v:.4f}" if abs(v) < 1 else f"{v:.2f}"


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
        rich_table.add_column(name, no_wrap=True, justify="right" if pa.types.is_integer(table.schema.field(name).type)
                              or pa.types.is_floating(table.schema.field(name).type) else "left")
    for row in table.to_pylist():
        rich_table.add_row(*["" if v is None else (_num(v) if isinstance(v, float) else str(v)) for v in row.values()])
    if output is None:
        # natural width: never fold or cut cells; a narrow terminal wraps the lines instead
        from rich.measure import Measurement
        wide = Console(file=console.file, width=100_000, highlight=False, color_system=console.color_system,
                       force_terminal=console.is_terminal)
        width = Measurement.get(wide, wide.options, rich_table).maximum
        Console(file=console.file, width=max(width, 20), highlight=False, color_system=console.color_system,
                force_terminal=console.is_terminal).print(rich_table)
    else:
        with output.open("w") as f:
            Console(file=f, width=200).print(rich_table)
