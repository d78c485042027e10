"""Every reason code a reject can carry (the ``rejects.reason_code`` column), with what it means.

Readers and the ingest driver choose a code when they reject a record (:class:`pipeline.formats.records.Reject`,
:class:`~pipeline.formats.records.RecordError`); this is the one list of them. ``rebelote rejects --reason CODE``
uses it to tell a code that is merely absent from the lake from one Rebelote never gives (a typo), and
``tests/test_ingest_messages.py`` checks that every code written in the readers is listed here and every code
listed here is written somewhere.
"""

from __future__ import annotations

import difflib

CODES: dict[str, str] = {
    # the file as a whole
    "empty_file": "the file (or a coinche-cli stream) holds no record",
    "unreadable_file": "the file cannot be read (I/O error, damaged gzip); records after the failure are not imported",
    "unreadable_sibling": "a file of a coinche-cli game folder beside the entry stream cannot be read",
    "no_records": "the reader recognised the file but found no game record in it",
    "reader_error": "the reader failed on the file (a Rebelote bug: please report it with the file)",
    "file_too_large": "the file decompresses to more bytes than --max-ratio times its size or --max-bytes allow "
                      "(a gzip bomb?); the records before the limit are imported",
    "line_too_long": "a line is longer than --max-line-bytes; the lines before it are imported, not it or those after",
    "too_deep": "a JSON record nests deeper than --max-depth",
    "duplicate_key": "a JSON object holds a key twice (a reader would keep only the last value)",
    "bad_encoding": "a line (or the file) is not UTF-8 text",
    "invalid_json": "a line or document is not valid JSON",
    "bad_csv": "a score sheet is not readable CSV from that line on",
    "bad_header": "a score sheet's header row is not usable (a column twice, a required column missing)",
    "unknown_column": "a score sheet column no reader knows (the column is ignored, the rows are imported)",
    "truncated_log": "a BGA log stops before its end",
    "truncated_stream": "a coinche-cli stream ends without game_over",
    "missing_header": "a coinche-cli stream does not start with its joined message (beginning cut off?)",
    "log_only": "a coinche-cli server.log without the stream files beside it (the log has no hands)",
    "bga_error": "the BGA file holds the site's error answer instead of a log",
    # the record's shape
    "bad_record": "a record is not what its format says (an object where a list is expected, a message out of place)",
    "missing_field": "a field the format requires is absent",
    "bad_field": "a field of a native record has the wrong type or value",
    "bad_value": "a value is out of range or of the wrong type for its column",
    "bad_row": "a score sheet row is not usable (no game_id, an unclosed quote)",
    "bad_source": "the source name is not a plain name (it names a lake folder)",
    "unsupported": "a feature of the source Rebelote does not import (a coinche-cli rematch in one stream)",
    # the game and its hands
    "no_hands": "the game has no hand",
    "no_players": "the game names no players",
    "missing_hand": "a hand (deal) of the game is missing or out of order",
    "duplicate_hand_no": "two hands of one game have the same number",
    "no_dealer": "a score sheet's first hand does not say who dealt",
    "bad_dealer": "a CFN line's dealer letter is not N, E, S or W",
    "bad_seat": "a seat is not one of the game's seats, or a player acts out of the seat order",
    "bad_seats": "a BGA log does not give four seats in a recoverable order",
    "seat_out_of_turn": "a call or card by a seat whose turn it was not",
    "bad_penalty": "a recorded penalty whose kind Rebelote does not know (misdeal, exposed_card, "
                   "bottom_card_not_turned, out_of_turn, wrong_card, heaped_trick, combination_not_shown) or whose "
                   "seat is not one of the game's",
    "bad_claim": "a recorded claim (declaring out) whose seat is not one of the game's or whose trick count is not "
                 "1 to 10",
    # the deal
    "unknown_card": "a card the format's notation does not know",
    "wrong_hand_count": "the deal does not give one hand per player",
    "wrong_hand_size": "a dealt hand does not hold the number of cards the game deals",
    "wrong_card_count": "a CFN line does not hold 32 cards (8 per seat)",
    "card_dealt_twice": "a card is dealt to two hands, or twice to one",
    "card_twice": "a card appears twice in a CFN line",
    "bad_hand": "a CFN hand is not four suit groups, or HANDS is not four hands",
    "hand_mismatch": "two files of a coinche-cli folder give one seat different hands",
    "deal_mismatch": "a BGA private newHand differs from the cards that seat played",
    # the auction and contract
    "bad_auction": "an auction call that is not allowed (unknown call, a bid that does not beat the last, ...)",
    "auction_mismatch": "the calls give another contract than the one the source records",
    "bad_cfn": "a CFN line is not HANDS TRICKS CONTRACT",
    "bad_contract": "a CFN contract is not <value><trump><team>[x|xx]",
    "no_contract": "cards were played but the hand has no contract",
    "no_bid": "a score sheet contract has no bid value",
    "no_strain": "a score sheet contract has no trump",
    "no_taker": "a score sheet contract has no taker",
    # the play
    "truncated_play": "the play stops before the last trick",
    "unfinished_deal": "a CFN position is mid-auction or mid-play",
    "unfinished_hand": "a BGA hand has no end before the next one starts",
    "card_played_twice": "a card is played twice in one hand",
    "card_not_held": "a seat plays a card it was not dealt",
    "bad_play_record": "the plays and the seats that played them do not line up",
    "bad_trick": "a CFN trick is not 4 cards",
    "trick_mismatch": "a coinche-cli trick_result differs from the cards played",
    "trick_winner_mismatch": "the trick winner a BGA log records differs from the cards",
    # what the source recorded, against itself or another file
    "recorded_mismatch": "a colver game disagrees with its line in games.jsonl",
    "totals_mismatch": "running totals (a carg score document, a score sheet's total columns) differ from the sum "
                       "of the hand scores",
    "made_mismatch": "a score sheet's made/failed cell contradicts the hand's scores",
    "log_mismatch": "a coinche-cli server.log disagrees with the stream",
    "conflicting_value": "a score sheet gives a game two different values for one game-level column",
    "conflicting_duplicate": "a colver games.jsonl line repeats a game with other values",
    "no_game": "a carg score document refers to a game the dump does not hold",
    "no_score": "a carg game has no score document, or several",
    # copies across files
    "duplicate_game_id": "the game id is already in the lake with other content (named with its file)",
    "conflicting_copy": "a single-deal copy disagrees with a copy of the same deal already imported",
}
"""Reason code -> what it means, in a few words."""


def known(code: str) -> bool:
    """Whether Rebelote ever gives reason code ``code``."""
    return code in CODES


def close_to(code: str, n: int = 3) -> list[str]:
    """Up to ``n`` known codes spelt like ``code`` (for a 'did you mean' hint), best first."""
    return difflib.get_close_matches(code, list(CODES), n=n, cutoff=0.6)
