"""[play]: the obligations of the card play (rules.md R10-R16) and the revoke penalty (R37).

Every position is trick 1 of a constructed deal, hearts trump unless said, dealer seat 3, so seat 0 leads and
seats play 0, 1, 2, 3. Teams: seats 0 and 2 against seats 1 and 3. Trump order J 9 A 10 K Q 8 7 (FFB-B16 §2).
``fault`` returns the first illegal play of trick 1 as (seat, card, obligation broken), None when it is legal.
"""

import pytest

from .harness import deal, fault, hand, pad, ruleset, score1

pytestmark = pytest.mark.rules

BASE = ruleset("base")

# Seat 0 holds every club, so every other seat is void in the suit led when seat 0 leads a club.
CLUBS_LEAD = deal("7C 8C 9C TC JC QC KC AC",
                  "JH 9H AH TH 7D 8D 9D TD",
                  "7H 8H JD QD KD AD 7S 8S",
                  "KH QH 9S TS JS QS KS AS")


@pytest.mark.covers("play.must_undertrump")
def test_must_undertrump():
    # AC led, seat 1 (opponent) ruffs with JH, the best trump. Seat 2 is void in clubs with only 7H 8H in trump,
    # both lower: "pisser" (FFB-B16 §5.2, rules.md R13) obliges him to play one of them, so JD breaks it.
    assert fault(BASE, CLUBS_LEAD, ["AC", "JH", "JD", "9S"]) == (2, "JD", "must_undertrump")
    # undertrumping with 7H is what the rule asks (seat 3, partner of the winner JH, is exempt: 9S)
    assert fault(BASE, CLUBS_LEAD, ["AC", "JH", "7H", "9S"]) is None
    # without the duty to undertrump, any card: JD is legal
    assert fault(ruleset("base", {"play.must_undertrump": False}), CLUBS_LEAD, ["AC", "JH", "JD", "9S"]) is None


@pytest.mark.covers("play.must_trump")
def test_must_trump():
    # AC led (seat 0 winning), seat 1 void in clubs holds four trumps and discards 7D: must trump (R12)
    assert fault(BASE, CLUBS_LEAD, ["AC", "7D", "JD", "9S"]) == (1, "7D", "must_trump")
    # without the duty: seat 1's 7D, seat 2's JD (partner winning) and seat 3's 9S are all legal
    assert fault(ruleset("base", {"play.must_trump": False}), CLUBS_LEAD, ["AC", "7D", "JD", "9S"]) is None


# Seat 1 ruffs AC with 9H; seat 2 holds JH, the one trump above it, and 7H.
OVERTRUMP = deal("7C 8C 9C TC JC QC KC AC",
                 "9H TH 7D 8D 9D TD JD QD",
                 "JH 7H KD AD 7S 8S 9S TS",
                 "AH KH QH 8H JS QS KS AS")


@pytest.mark.covers("play.must_overtrump")
def test_must_overtrump():
    # seat 2, void, an opponent winning with 9H: must beat it with JH if able (R12); 7H breaks it
    assert fault(BASE, OVERTRUMP, ["AC", "9H", "7H", "JS"]) == (2, "7H", "must_overtrump")
    # (then seat 3, whose partner is beaten by JH, must undertrump: 8H)
    assert fault(BASE, OVERTRUMP, ["AC", "9H", "JH", "8H"]) is None
    # without the duty to overtrump, a lower trump is legal
    assert fault(ruleset("base", {"play.must_overtrump": False}), OVERTRUMP, ["AC", "9H", "7H", "JS"]) is None


# Seat 1 follows clubs with 7C, so seat 0's AC wins when seat 2 (its partner, void in clubs, with trumps) plays.
PARTNER = deal("8C 9C TC JC QC KC AC 7D",
               "7C JH 9H AH TH 8D 9D TD",
               "7H 8H JD QD KD AD 7S 8S",
               "KH QH 9S TS JS QS KS AS")


@pytest.mark.covers("play.partner_exemption")
def test_partner_exemption():
    # partner winning: seat 2 may discard JD (R14); seat 3 (an opponent winning) trumps with KH
    assert fault(BASE, PARTNER, ["AC", "7C", "JD", "KH"]) is None
    # without the exemption a void player with trumps must trump even over his partner
    assert fault(ruleset("base", {"play.partner_exemption": False}), PARTNER,
                 ["AC", "7C", "JD", "KH"]) == (2, "JD", "must_trump")


# AH led; seat 1 holds JH (above AH) and 7H.
TRUMP_LEAD = deal("AH 7C 8C 9C TC JC QC KC",
                  "JH 7H AC 7D 8D 9D TD JD",
                  "8H 9H QD KD AD 7S 8S 9S",
                  "TH KH QH TS JS QS KS AS")


@pytest.mark.covers("play.overtrump_on_trump_lead")
def test_overtrump_on_trump_lead():
    # trump led: seat 1 must play a higher trump (JH) if able (R11); 7H breaks it. Seat 2 then beats AH with 9H,
    # seat 3 (TH KH QH, none above 9H) follows with TH.
    assert fault(BASE, TRUMP_LEAD, ["AH", "7H", "9H", "TH"]) == (1, "7H", "overtrump_on_trump_lead")
    assert fault(BASE, TRUMP_LEAD, ["AH", "JH", "8H", "TH"]) is None
    assert fault(ruleset("base", {"play.overtrump_on_trump_lead": False}), TRUMP_LEAD,
                 ["AH", "7H", "9H", "TH"]) is None


# All-trump, AC led: seat 1 holds JC (above AC in trump order) and 7C.
ALL_TRUMP = deal("AC 7H 8H 9H TH JH QH KH",
                 "JC 7C 7D 8D 9D TD JD QD",
                 "8C 9C KD AD 7S 8S 9S TS",
                 "TC KC QC AH JS QS KS AS")
AT = ruleset("base", {"auction.strains": ["C", "D", "H", "S", "NT", "AT"]})


@pytest.mark.covers("play.all_trump_must_head")
def test_all_trump_must_head():
    # all-trump: beat the best card of the suit led if able (FFB-Co15 §11.3, R16): 7C under JC breaks it;
    # seat 2 heads AC with 9C (legal), seat 3 (TC KC QC, none above 9C) follows with TC
    assert fault(AT, ALL_TRUMP, ["AC", "7C", "9C", "TC"], strain="AT") == (1, "7C", "must_head")
    assert fault(AT, ALL_TRUMP, ["AC", "JC", "8C", "TC"], strain="AT") is None
    assert fault(ruleset("base", {"auction.strains": ["C", "D", "H", "S", "NT", "AT"],
                                  "play.all_trump_must_head": False}),
                 ALL_TRUMP, ["AC", "7C", "9C", "TC"], strain="AT") is None


# AC led, seat 1 ruffs with 9H, seat 2 follows 8C; seat 3 (partner of the winner 9H) is void in clubs and holds
# JH (above 9H) and 7H.
RAISE = deal("AC TC KC QC JC 7D 8D 9D",
             "9H TH AH TD JD QD KD AD",
             "8C 9C 7C 8H 7S 8S 9S TS",
             "JH 7H KH QH JS QS KS AS")


@pytest.mark.covers("play.partner_exemption_must_raise")
def test_partner_exemption_must_raise():
    # default false: partner winning, any card, 7H included (R14)
    assert fault(BASE, RAISE, ["AC", "9H", "8C", "7H"]) is None
    raise_ = ruleset("base", {"play.partner_exemption_must_raise": True})
    # true (libcoinche): a trump played on the partner's trump must beat it when one can: 7H breaks it ...
    assert fault(raise_, RAISE, ["AC", "9H", "8C", "7H"]) == (3, "7H", "must_overtrump")
    # ... while a discard (JS) or the higher trump JH stays legal
    assert fault(raise_, RAISE, ["AC", "9H", "8C", "JS"]) is None
    assert fault(raise_, RAISE, ["AC", "9H", "8C", "JH"]) is None


@pytest.mark.covers("play.revoke_penalty")
def test_revoke_penalty():
    # seat 2 (team 0) fails to undertrump in trick 1 (test_must_undertrump). Each of the offender's opponents
    # scores revoke_penalty game points on top of the hand's score (R37): team 1 +10, team 0 unchanged.
    h = hand(CLUBS_LEAD, plays=pad(CLUBS_LEAD, ["AC", "JH", "JD", "9S"]))
    plain = score1(BASE, h)
    fined = score1(ruleset("base", {"play.revoke_penalty": 10}), h)
    assert (plain["illegal_seat"], plain["illegal_rule"]) == (2, "must_undertrump")
    assert fined["hand_score"] == [plain["hand_score"][0], plain["hand_score"][1] + 10]
