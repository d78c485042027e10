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


#: widest a text cell is shown on a terminal before it folds onto more lines
TERMINAL_CELL = 32
#: rows a table shows on a terminal unless the command was given --limit
TERMINAL_ROWS = 100


def fit_columns(table: pa.Table, width: int) -> tuple[pa.Table, list[str]]:
    """The columns of ``table`` whose cells fit a terminal ``width`` characters wide (text folded at
    :data:`TERMINAL_CELL` characters), at least one, in the table's order; and the names of the columns left out.
    Columns are taken from the left, except that the bounds of a confidence interval (names ending in ``_lo`` or
    ``_hi``) give way to every other column: a reader wants ``points_per_hand`` before ``made_rate_lo``."""
    cells = _cells(table)
    names = table.column_names
    order = sorted(range(len(names)), key=lambda i: (is_secondary(names[i]), i))
    used, keep = 1, set()                               # the table's left border
    for i in order:
        natural = max([len(names[i])] + [len(r[i]) for r in cells])
        w = min(natural, max(TERMINAL_CELL, len(names[i]))) + 3          # padding and the border on its right
        if keep and used + w > width:
            break
        used += w
        keep.add(i)
    return (table.select([n for i, n in enumerate(names) if i in keep]),
            [n for i, n in enumerate(names) if i not in keep])


def _json_number(value):
    """A DuckDB decimal (a SUM of integers is a HUGEINT, which Arrow carries as a decimal) as a JSON number: an
    int when whole, else a float. Raises TypeError for anything else, as orjson does."""
    from decimal import Decimal
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def _more(options: list[str], saves: bool) -> str:
    """The end of a note on a cut table: the options the command has that show the rest."""
    options = options + (["write them all with --format csv or --output FILE"] if saves else [])
    return (": " + ", or ".join(options)) if options else ""


def is_secondary(name: str) -> bool:
    """A column a narrow terminal leaves out first: a confidence interval's bound."""
    return name.endswith(("_lo", "_hi"))


def write(table: pa.Table, fmt: str, output: Path | None, console: Console, warn=None,
          max_rows: int | None = TERMINAL_ROWS, selects: bool = True, saves: bool = True) -> None:
    """Render ``table`` as ``fmt`` to ``output`` (or the console). On a terminal a table fits its width: long texts
    fold, the columns that do not fit are left out, and past ``max_rows`` rows the rest, each said by
    ``warn(text)`` (pipes and files get every row and column, at natural width); ``selects``: the command has
    ``--limit``, ``--sort`` and ``--columns``, ``saves`` ``--format`` and ``--output``, which the notes then suggest. Raises ValueError for an
    unknown format, or parquet without --output."""
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
        data = orjson.dumps(table.to_pylist(), option=orjson.OPT_INDENT_2, default=_json_number) + b"\n"
        if output is None:
            console.file.write(data.decode())
        else:
            output.write_bytes(data)
        return
    fit = output is None and console.is_terminal
    if fit and max_rows is not None and table.num_rows > max_rows:
        if warn is not None:
            warn(f"the first {max_rows} of {table.num_rows:,} rows"
                 + _more(["--limit N (with --sort) for others"] if selects else [], saves))
        table = table.slice(0, max_rows)
    if fit:
        table, left_out = fit_columns(table, console.width)
        if left_out and warn is not None:
            warn(f"{len(left_out)} more column{'s' if len(left_out) > 1 else ''} than this terminal shows "
                 f"({', '.join(left_out[:6])}{' ...' if len(left_out) > 6 else ''})"
                 + _more(["choose with --columns"] if selects else [], saves))
    rich_table = Table(show_header=True, header_style="bold")
    for name in table.column_names:
        typ = table.schema.field(name).type
        number = pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_decimal(typ)
        rich_table.add_column(name, justify="right" if number else "left", no_wrap=number or not fit,
                              overflow="fold")
    from rich.text import Text
    for row in _cells(table):     # as text, never as markup: a name such as "[/b]" is printed as it is
        rich_table.add_row(*(Text(c) if isinstance(c, str) else c for c in row))
    # natural width, never cut cells; on a terminal at most its width, the texts folded where they must be
    # (rich narrows the widest text columns first; fit_columns kept only what fits with texts of TERMINAL_CELL)
    from rich.measure import Measurement
    wide = Console(file=console.file, width=100_000, highlight=False)
    width = max(Measurement.get(wide, wide.options, rich_table).maximum, 20)
    if fit:
        width = min(width, max(console.width, 20))
    if output is None:
        Console(file=console.file, width=width, highlight=False, color_system=console.color_system,
                force_terminal=console.is_terminal).print(rich_table)
    else:
        with output.open("w") as f:
            Console(file=f, width=width, highlight=False).print(rich_table)
