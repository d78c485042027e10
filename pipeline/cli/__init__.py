"""The ``rebelote`` command line (typer). Thin: each command calls one library function and prints its
one-line summary.

Exit status: 0 success; 1 the command ran but some records were rejected (ingest); 2 usage error,
unreadable input, bad ruleset or lake problem (the message says which).
"""

from __future__ import annotations

import os

# Arrow's allocator for the whole command (and its worker processes), chosen before pyarrow is first imported:
# the system allocator gives freed pages back where pyarrow's default (mimalloc) keeps them, so a rescore's peak
# grows less with the lake (docs/bench-results.md, "Arrow's system allocator"). A value the user set is kept.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from typing import Annotated  # noqa: E402

import typer  # noqa: E402
from rich.markup import escape  # noqa: E402

from pipeline.cli.common import app, err, out  # noqa: E402
# each module registers its commands on import, in the order `rebelote --help` lists them
from pipeline.cli import lake_cmds, stats_cmds, export_cmds, tool_cmds  # noqa: F401,E402


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version
        try:
            out.print(f"rebelote {version('rebelote')}")
        except PackageNotFoundError:
            out.print("rebelote (not installed)")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """Rebelote: import belote game records into a Parquet lake, rescore them under any ruleset, and report
    statistics with DuckDB."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):   # one plain line, no source location
        err.print(f"[yellow]warning:[/] {escape(str(message))}")
    warnings.showwarning = show


def main() -> None:
    import signal
    # a closed pipe (`rebelote export | head`) ends the command quietly, as for other Unix tools
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    app()
