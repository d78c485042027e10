"""The game simulator (``games``: deals, auctions, play, scored by the engine) and its players (``bots``:
hand values, bids, card play), for ``rebelote simulate``, the benchmarks and the tests."""
