"""``python -m pipeline.cli``: the ``rebelote`` command."""

from pipeline.cli import main

main()
