"""The game simulator (``games``: games, auctions and play, scored by the engine; ``deal``: the 2- and
3-player deals) and its players (``bots``: hand values, bids, card play), for ``rebelote simulate``, the
benchmarks and the tests."""
