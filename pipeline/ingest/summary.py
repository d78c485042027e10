"""What one ingest run did: :class:`IngestSummary`, its counts, one line of text and a dict for ``--json``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.words import count

class StrictError(RuntimeError):
    """Raised under --strict at the first rejected record; the message names file, line, game, hand."""

@dataclass
class IngestSummary:
    """Counts of one ingest run; ``str()`` is the one-line summary."""

    files: int = 0
    games: int = 0
    hands: int = 0
    duplicates: int = 0
    rejected: Counter = field(default_factory=Counter)
    unrecognised: list[str] = field(default_factory=list)
    unrecognised_named: list[str] = field(default_factory=list)   # ... of them, files named on the command line
    documentation: list[str] = field(default_factory=list)   # files in folders no reader recognised, named as docs (README.md)
    formats: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    bytes: int = 0
    unchanged: int = 0
    same_game: int = 0        # games skipped: already imported from another file with the same deals and plays
    same_content: int = 0     # games skipped: the content of a stored game under another id (a renamed folder)
    replaced_by_richer: int = 0   # ... or replaced, this copy carrying more of the source's results
    same_deal: int = 0        # single-deal copies skipped: the deal is already imported, as richly, from another file
    deal_replaced: int = 0    # single-deal copies dropped from the lake for a richer copy of their deal
    kept_leniently: int = 0   # hands kept under --on-error lenient at a lower completeness (see ingest.lenient)
    replaced: int = 0    # hands of changed files removed because the new version of the file no longer has them
    rejects_cleared: int = 0   # rejects of changed files that their new version no longer raises (removed)
    earlier_rejects: int = 0   # rejects stored by earlier runs for the unchanged files this run skipped
    gone: list[str] = field(default_factory=list)   # files imported before, now gone from a folder imported again
    gone_hands: int = 0        # ... the hands they had brought, removed (those another file holds are taken over)
    gone_rejects: int = 0      # ... and their rejects, removed
    gone_kept: bool = False    # gone files were only named (no --prune): their rows stay
    taken_over: int = 0        # hands a file no longer holds, brought back from another file that does
    reread: list[str] = field(default_factory=list)   # files read again because they hold such hands
    rechecked: list[str] = field(default_factory=list)   # files read again: a whole game disagrees with their copy
    holders_missing: int = 0   # files that held such hands but are no longer on disk (not read)
    notices: int = 0           # things readers noticed that are not errors (an exact repeat of a line)
    cr_files: list[str] = field(default_factory=list)   # files whose lines end in CR alone, read with CR as line end
    workers_lost: list[str] = field(default_factory=list)   # files whose ingest worker died: read on in this process
    # per reader that read files: {"files", "games", "hands", "duplicates", "rejected"} added while its files were
    # read, before any drop; ``dropped``: its one-deal games of this run dropped since for a richer copy
    by_format: dict[str, Counter] = field(default_factory=dict)
    dropped: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict:
        """The counts as plain JSON types (``rebelote ingest --json``), with the one-line summary as ``summary``."""
        d = {k: (dict(v) if isinstance(v, Counter) else v) for k, v in vars(self).items()}
        d["by_format"] = {k: dict(v) for k, v in self.by_format.items()}
        d["summary"] = str(self)
        return d

    def _counts(self) -> tuple[int, int, int, int]:
        """(games, hands, duplicates, rejected) added so far, drops put back (a dropped copy is 1 game of 1 hand)."""
        k = sum(self.dropped.values())
        return self.games + k, self.hands + k, self.duplicates, sum(self.rejected.values())

    def format_lines(self) -> list[str]:
        """One line per reader that read files, in name order: ``"  NAME: F files, G games, H hands, D
        duplicates skipped, R rejected"`` (this run's counts; games and hands net of the one-deal copies dropped
        for a richer copy, so the lines add up to the total line's games and hands)."""
        out = []
        for name, c in sorted(self.by_format.items()):
            games, hands = c["games"] - self.dropped[name], c["hands"] - self.dropped[name]
            out.append(f"  {name}: {count(c['files'], 'file')}, {count(games, 'game')}, {count(hands, 'hand')}, "
                       f"{count(c['duplicates'], 'duplicate')} skipped, {c['rejected']} rejected")
        return out

    def __str__(self) -> str:
        rej = sum(self.rejected.values())
        by = ", ".join(f"{k} {v}" for k, v in sorted(self.rejected.items()))
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        s = (f"ingest: {count(self.files, 'file')}, {count(self.games, 'game')}, {count(self.hands, 'hand')}, "
             f"{count(self.duplicates, 'duplicate')} skipped, {rej} rejected{f' ({by})' if by else ''}, {self.seconds:.2f} s, {rate:,.0f} hands/s")
        if self.documentation:
            s += f"; {count(len(self.documentation), 'documentation file')} skipped ({_names(self.documentation)})"
        if self.unrecognised:
            s += f"; {count(len(self.unrecognised), 'file')} not recognised"
            if self.unrecognised_named:
                k = len(self.unrecognised_named)
                s += (f" ({'all' if k == len(self.unrecognised) else k} named on the command line: exit status 1; "
                      "--format forces a reader)")
        if self.unchanged:
            s += f"; {count(self.unchanged, 'unchanged file')} skipped"
        if self.replaced:
            s += f"; {count(self.replaced, 'hand')} of changed files superseded (edited or removed)"
        if self.same_game or self.replaced_by_richer:
            s += (f"; {count(self.same_game + self.replaced_by_richer, 'game')} already imported from another file "
                  f"(same deals{f', {self.replaced_by_richer} replaced by a copy with more recorded results' if self.replaced_by_richer else ''})")
        if self.same_content:
            s += (f"; {count(self.same_content, 'game')} already imported under another id (the same content: a renamed "
                  "or copied game folder)")
        if self.same_deal or self.deal_replaced:
            k = self.same_deal + self.deal_replaced
            s += (f"; {k} single-deal cop{'y' if k == 1 else 'ies'} of deals already imported from "
                  f"another file ({self.same_deal} skipped, {self.deal_replaced} replaced by a richer copy)")
        if self.kept_leniently:
            s += f"; {count(self.kept_leniently, 'damaged hand')} kept (lenient)"
        if self.rejects_cleared:
            s += f"; {count(self.rejects_cleared, 'reject')} of changed files cleared (no longer raised)"
        if self.earlier_rejects:
            s += (f"; {count(self.earlier_rejects, 'reject')} from earlier runs remain in the unchanged files skipped "
                  "(`rebelote rejects` lists them)")
        if self.gone:
            s += (f"; {count(len(self.gone), 'file')} gone from {'its folder' if len(self.gone) == 1 else 'their folders'}"
                  + (" since imported (rows kept; --prune removes them)" if self.gone_kept else
                     f" since imported ({count(self.gone_hands, 'hand')}, {count(self.gone_rejects, 'reject')} removed)"))
        if self.reread:
            s += (f"; {count(len(self.reread), 'file')} read again to take over hands their file no longer holds "
                  f"({self.taken_over} taken over)")
        if self.rechecked:
            s += (f"; {count(len(self.rechecked), 'file')} read again: a whole game disagrees with "
                  f"{'its' if len(self.rechecked) == 1 else 'their'} single-deal copies")
        if self.holders_missing:
            s += f"; {count(self.holders_missing, 'file')} holding removed hands no longer on disk (not read)"
        if self.notices:
            s += f"; {count(self.notices, 'notice')}"
        if self.workers_lost:
            s += (f"; an ingest worker process died reading {count(len(self.workers_lost), 'file')}, read on in this "
                  f"process instead: {', '.join(self.workers_lost)}")
        if self.cr_files:
            s += (f"; {count(len(self.cr_files), 'file')} with old Mac line ends (CR alone) read with CR as the line "
                  "end")
        return s

DOCUMENTATION = "documentation (skipped)"
"""What ``on_file`` is given for a README, FORMAT.md... met in a folder (:func:`pipeline.formats.is_documentation`)."""

def _names(paths: list[str], limit: int = 3) -> str:
    """``"README.md, FORMAT.md ..."``: the distinct file names among ``paths``, the first ``limit`` of them."""
    seen = list(dict.fromkeys(Path(p).name for p in paths))
    return ", ".join(seen[:limit]) + (" ..." if len(seen) > limit else "")
