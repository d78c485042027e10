"""Maintenance of a lake: compaction (``compaction``), layout migration (``migrate``), and what the lake
holds and what to run next (``status``). Above the facts, since each knows which report tables a change
leaves stale."""
