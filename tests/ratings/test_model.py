"""The rating model (games/ratings/model.py, docs/ratings.md) against the mathematics it claims:
Weng and Lin's Plackett-Luce update (JMLR 2011, Algorithm 4) written out again below in plain
arithmetic, the way OpenSkill 6.2.0 computes it; how a match's result becomes ranks; leaving as a
loss (R8.1); the number shown and when it stops being provisional."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import get_variant
from games.models import Rating
from games.ratings.model import (
    BETA,
    PROVISIONAL_SIGMA,
    SIGMA,
    TAU,
    Outcome,
    Skill,
    give_again,
    is_provisional,
    match_outcome,
    rate,
    shown,
    take_back,
)
from games.ratings.selectors import RatingShown

#: OpenSkill's default floor of the factor that shrinks a sigma (docs/ratings.md's table).
KAPPA = 0.0001

Team = list[tuple[float, float]]  # (mu, sigma) of each member


def plackett_luce(teams: list[Team], ranks: list[int]) -> list[Team]:
    """Weng and Lin's Algorithm 4 as OpenSkill 6.2.0's ``PlackettLuce.rate`` computes it.

    Each sigma first grows by ``tau`` (sqrt(sigma^2 + tau^2)). A team's mu is the sum of its
    members', its sigma^2 the sum of theirs; c = sqrt(sum over teams of (sigma_t^2 + beta^2)).
    Team q's "rest" are the teams ranked as low as q or lower, A_q the teams tied with q. Team i
    sums over the teams q ranked as high as i or higher, with p = exp(mu_i/c) / (sum over q's rest
    of exp(mu/c)): omega gets (1 - p)/A_q for q = i and -p/A_q otherwise, delta p(1 - p)/A_q;
    then omega *= sigma_i^2/c, delta *= sigma_i^2/c^2 * gamma with gamma = sigma_i/c. A member
    gets mu += sigma^2/sigma_i^2 * omega and sigma *= sqrt(max(1 - sigma^2/sigma_i^2 * delta,
    kappa)). OpenSkill 6.2.0 also means to average the mu changes of tied teams, but that step
    compares each player with himself after his update, so it changes nothing; this does not.
    """
    teams = [[(mu, math.sqrt(sigma**2 + TAU**2)) for mu, sigma in team] for team in teams]
    team_mu = [sum(mu for mu, _ in team) for team in teams]
    team_var = [sum(sigma**2 for _, sigma in team) for team in teams]
    c = math.sqrt(sum(var + BETA**2 for var in team_var))
    strength = [math.exp(mu / c) for mu in team_mu]
    k = range(len(teams))
    rest = [sum(strength[t] for t in k if ranks[t] >= ranks[q]) for q in k]
    tied = [ranks.count(ranks[q]) for q in k]
    after = []
    for i in k:
        omega = delta = 0.0
        for q in (q for q in k if ranks[q] <= ranks[i]):
            p = strength[i] / rest[q]
            omega += ((1 - p) if q == i else -p) / tied[q]
            delta += p * (1 - p) / tied[q]
        omega *= team_var[i] / c
        delta *= team_var[i] / c**2 * (math.sqrt(team_var[i]) / c)
        after.append(
            [
                (
                    mu + sigma**2 / team_var[i] * omega,
                    sigma * math.sqrt(max(1 - sigma**2 / team_var[i] * delta, KAPPA)),
                )
                for mu, sigma in teams[i]
            ]
        )
    return after


def by_hand(outcome: Outcome, before: list[Skill], ranks: tuple[int, ...] | None = None):
    """:func:`plackett_luce` on a match's teams of seats, back in seat order."""
    teams = [[(before[s].mu, before[s].sigma) for s in team] for team in outcome.teams]
    rated = plackett_luce(teams, list(ranks or outcome.ranks))
    after: list[tuple[float, float]] = [(0.0, 0.0)] * len(before)
    for team, new in zip(outcome.teams, rated, strict=True):
        for seat, skill in zip(team, new, strict=True):
            after[seat] = skill
    return after


def pairs(skills: list[Skill]) -> list[tuple[float, float]]:
    return [(s.mu, s.sigma) for s in skills]


def close(values: list[tuple[float, float]]):
    return [pytest.approx(pair, rel=1e-12, abs=1e-12) for pair in values]


# -- the update against hand-computed values ------------------------------------------------------


def test_two_against_two_is_plackett_luce_of_the_partnerships_R1_4():
    # Seats 0 and 2 (30 +- 4, 22 +- 6) beat seats 1 and 3 (a newcomer, 28 +- 3): an upset, as
    # the losers' skills sum to 53 against 52.
    before = [Skill(30, 4), Skill(25, SIGMA), Skill(22, 6), Skill(28, 3)]
    outcome = match_outcome(variant="hokm4", winner_side=0, scores=[1, 0])

    after = rate(outcome, before)

    assert pairs(after) == close(by_hand(outcome, before))
    # By hand, for the newcomer in seat 1: sigma^2 + tau^2 = 69.4444 + 0.0069 = 69.4514, his
    # team's variance 69.4514 + 9.0069 = 78.4583, the winners' 16.0069 + 36.0069 = 52.0139;
    # c = sqrt(52.0139 + 78.4583 + 2 * 17.3611) = 12.85280. exp(52/c) = 57.1575 and
    # exp(53/c) = 61.7822, so p = 61.7822 / (57.1575 + 61.7822) = 0.519441 against the winners
    # and 1 against his own team alone: omega = -0.519441 * 78.4583 / c = -3.170865, and his mu
    # moves by 69.4514 / 78.4583 of it: 25 - 0.885200 * 3.170865 = 22.19315.
    assert after[1].mu == pytest.approx(22.19315, abs=1e-5)
    # The settled partner (28 +- 3) carries a smaller share of the same loss.
    assert after[3].mu == pytest.approx(27.63599, abs=1e-5)
    assert after[0].mu - 30 < after[2].mu - 22  # the less certain winner gains more


def test_three_players_rank_the_winner_first_and_tie_equal_points():
    # Seat 0 wins the match; seats 1 and 2 end on equal points and tie for second.
    before = [Skill(27, 5), Skill(25, SIGMA), Skill(21, 7)]
    outcome = match_outcome(variant="hokm3", winner_side=0, scores=[7, 4, 4])
    assert outcome.ranks == (1, 2, 2)

    after = rate(outcome, before)

    assert pairs(after) == close(by_hand(outcome, before))
    # By hand, for the winner: variances 25.0069, 69.4514, 49.0069; c = sqrt(143.4653 + 3 *
    # 17.3611) = 13.98387; strengths exp(27/c) = 6.89500, exp(25/c) = 5.97614, exp(21/c) =
    # 4.48945, all three in his "rest": p = 6.89500 / 17.36058 = 0.397164, omega = 1 - p =
    # 0.602836, times 25.0069 / c: 1.078034. Alone in his team, he gets all of it:
    assert after[0].mu == pytest.approx(28.07803, abs=1e-5)
    # Tied teams are not averaged (see plackett_luce): each moves by its own omega.
    assert after[1].mu == pytest.approx(22.93758, abs=1e-5)
    assert after[2].mu == pytest.approx(20.34264, abs=1e-5)


def test_two_new_players_one_against_one():
    before = [Skill(), Skill()]
    outcome = match_outcome(variant="hokm2", winner_side=0, scores=[7, 3])

    after = rate(outcome, before)

    assert pairs(after) == close(by_hand(outcome, before))
    # By hand: sigma'^2 = (25/3)^2 + (1/12)^2 = 69.45139, c = sqrt(2 * (69.45139 + 17.36111)) =
    # 13.17668; equal strengths, so p = 1/2: omega = 0.5 * 69.45139 / c = 2.635389, delta =
    # 0.25 * 69.45139 / c^2 * 8.33375 / c = 0.0632475. The winner: mu = 27.635389, sigma =
    # 8.33375 * sqrt(1 - 0.0632475) = 8.065901; shown 1500 + 20 * (27.635389 - 24.197704) =
    # 1568.75 -> 1569. The loser: mu = 22.364611, shown 1463.
    assert after[0].mu == pytest.approx(27.635389, abs=1e-6)
    assert after[1].mu == pytest.approx(22.364611, abs=1e-6)
    assert after[0].sigma == after[1].sigma == pytest.approx(8.065901, abs=1e-6)
    assert (after[0].rating, after[1].rating) == (1569, 1463)


@given(
    variant=st.sampled_from(["hokm4", "hokm3", "hokm2", "hokm2-draw", "court-piece"]),
    data=st.data(),
)
def test_every_result_is_rated_as_plackett_luce(variant, data):
    rules = get_variant(variant)
    skill = st.builds(
        Skill, st.floats(min_value=5, max_value=45), st.floats(min_value=0.5, max_value=SIGMA)
    )
    before = data.draw(st.lists(skill, min_size=rules.players, max_size=rules.players))
    winner = data.draw(st.integers(0, rules.sides - 1))
    scores = data.draw(st.lists(st.integers(0, 9), min_size=rules.sides, max_size=rules.sides))

    outcome = match_outcome(variant=variant, winner_side=winner, scores=scores)

    assert pairs(rate(outcome, before)) == close(by_hand(outcome, before))


# -- results as ranks ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["hokm4", "court-piece"])
def test_partnerships_are_seats_0_and_2_against_1_and_3_R1_4(variant):
    outcome = match_outcome(variant=variant, winner_side=1, scores=[4, 7])

    assert outcome.teams == ((0, 2), (1, 3))
    assert outcome.ranks == (2, 1)
    assert [outcome.won(seat) for seat in range(4)] == [False, True, False, True]


@pytest.mark.parametrize(
    ("winner", "scores", "ranks"),
    [
        (2, [3, 5, 7], (3, 2, 1)),
        (2, [4, 4, 7], (2, 2, 1)),
        (0, [7, 0, 6], (1, 3, 2)),
        # The winner is first whatever the points; the others follow by theirs.
        (1, [7, 6, 5], (2, 1, 3)),
    ],
)
def test_three_players_the_winner_then_by_points_equal_points_tied(winner, scores, ranks):
    outcome = match_outcome(variant="hokm3", winner_side=winner, scores=scores)

    assert outcome.teams == ((0,), (1,), (2,))
    assert outcome.ranks == ranks
    assert [outcome.won(seat) for seat in range(3)] == [seat == winner for seat in range(3)]


@pytest.mark.parametrize("variant", ["hokm2", "hokm2-draw"])
def test_two_players_the_winner_first(variant):
    outcome = match_outcome(variant=variant, winner_side=1, scores=[6, 7])

    assert (outcome.teams, outcome.ranks) == (((0,), (1,)), (2, 1))


def test_without_a_winner_every_team_ties_and_nobody_won():
    outcome = match_outcome(variant="hokm3", winner_side=None, scores=[1, 2, 3])

    assert outcome.ranks == (1, 1, 1)
    assert not any(outcome.won(seat) for seat in range(3))


# -- leaving counts as a loss (R8.1) --------------------------------------------------------------

BEFORE4 = [Skill(30, 4), Skill(25, SIGMA), Skill(22, 6), Skill(28, 3)]
BEFORE3 = [Skill(27, 5), Skill(25, SIGMA), Skill(21, 7)]


def test_a_winner_who_left_loses_and_his_partner_keeps_the_win_R8_1():
    outcome = match_outcome(variant="hokm4", winner_side=0, scores=[7, 2], left=[0])
    honest = by_hand(outcome, BEFORE4)
    as_loser = by_hand(outcome, BEFORE4, ranks=(2, 1))

    after = pairs(rate(outcome, BEFORE4))

    assert after[0] == pytest.approx(as_loser[0], rel=1e-12)
    assert after[0][0] < BEFORE4[0].mu  # a loss: his skill estimate falls
    assert after[1:] == close(honest[1:])  # partner and opponents: the result as played
    assert after[2][0] > BEFORE4[2].mu
    assert [outcome.won(seat) for seat in range(4)] == [False, False, True, False]


def test_a_loser_who_left_is_rated_as_the_loser_he_is():
    left = match_outcome(variant="hokm4", winner_side=0, scores=[7, 2], left=[3])
    stayed = match_outcome(variant="hokm4", winner_side=0, scores=[7, 2])

    assert rate(left, BEFORE4) == rate(stayed, BEFORE4)
    assert not left.won(3)


@pytest.mark.parametrize(
    ("winner", "scores", "leaver", "his_ranks"),
    [
        (0, [7, 4, 4], 0, (3, 2, 2)),  # the winner who left goes last, alone
        (0, [7, 4, 4], 1, (1, 3, 2)),  # one of two tied for second goes last
        (2, [3, 5, 7], 1, (3, 4, 1)),  # second goes below the last
    ],
)
def test_a_hokm3_player_who_left_goes_last_R8_1(winner, scores, leaver, his_ranks):
    outcome = match_outcome(variant="hokm3", winner_side=winner, scores=scores, left=[leaver])
    honest = by_hand(outcome, BEFORE3)

    after = pairs(rate(outcome, BEFORE3))

    assert after[leaver] == pytest.approx(by_hand(outcome, BEFORE3, his_ranks)[leaver], rel=1e-12)
    others = [seat for seat in range(3) if seat != leaver]
    assert [after[s] for s in others] == close([honest[s] for s in others])
    assert not outcome.won(leaver)


def test_a_hokm3_player_who_left_in_last_place_keeps_it():
    left = match_outcome(variant="hokm3", winner_side=2, scores=[3, 5, 7], left=[0])
    stayed = match_outcome(variant="hokm3", winner_side=2, scores=[3, 5, 7])

    assert rate(left, BEFORE3) == rate(stayed, BEFORE3)


# -- the number shown, and provisional ratings -----------------------------------------------------


@pytest.mark.parametrize(
    ("mu", "sigma", "rating"),
    [
        (25, 25 / 3, 1500),  # a newcomer: mu - 3 sigma = 0
        (30, 2, 1980),  # 1500 + 20 * (30 - 6)
        (20, 8, 1420),  # 1500 + 20 * (20 - 24)
        (27.635389493140497, 8.06590141354368, 1569),  # 1568.75, rounded
        (25.51, 25 / 3, 1510),  # 1510.2, rounded down
    ],
)
def test_the_number_shown_is_1500_plus_20_times_mu_minus_3_sigma(mu, sigma, rating):
    assert shown(mu, sigma) == rating
    assert Skill(mu, sigma).rating == rating


def test_a_new_player_is_provisional_and_shown_1500_with_a_question_mark():
    assert Skill().provisional
    assert RatingShown.of(None, "hokm4").text == "1500?"


@pytest.mark.parametrize(
    ("sigma", "text"),
    [(SIGMA, "1600?"), (PROVISIONAL_SIGMA, "1600?"), (math.nextafter(6.5, 0), "1600"), (2, "1600")],
)
def test_the_question_mark_shows_exactly_while_sigma_is_at_least_6_5(sigma, text):
    row = Rating(variant="hokm2", mu=30.0, sigma=sigma, rating=1600)

    assert RatingShown.of(row, "hokm2").text == text
    assert is_provisional(sigma) == text.endswith("?")


def _one_against_one(me: Skill, opponent: Skill, n: int) -> tuple[Skill, Skill]:
    """Match ``n`` (from 1) of a series where he wins the odd ones and loses the even ones."""
    outcome = match_outcome(variant="hokm2", winner_side=0 if n % 2 else 1, scores=[0, 0])
    after = rate(outcome, [me, opponent])
    return after[0], after[1]


def test_two_newcomers_settle_after_nine_matches_of_alternating_results():
    me = opponent = Skill()
    provisional = []
    for n in range(1, 13):
        me, opponent = _one_against_one(me, opponent, n)
        provisional.append(me.provisional)

    # sigma after 8 matches: 6.565 (still provisional); after 9: 6.390.
    assert provisional == [True] * 8 + [False] * 4
    assert opponent.sigma == pytest.approx(me.sigma)


def test_a_newcomer_meeting_newcomers_settles_after_ten_matches():
    """docs/ratings.md's "10 matches of one against one": each opponent new, results 50%."""
    me = Skill()
    provisional = []
    for n in range(1, 13):
        me, _ = _one_against_one(me, Skill(), n)
        provisional.append(me.provisional)

    assert provisional == [True] * 9 + [False] * 3


# -- a void's arithmetic --------------------------------------------------------------------------


def test_a_void_takes_the_change_back_from_where_the_rating_stands_and_a_lift_gives_it_again():
    before, after = Skill(25, SIGMA), Skill(27.6, 8.0)
    later = Skill(29.0, 7.5)  # another match since

    voided = take_back(later, before, after)
    restored = give_again(voided, before, after)

    assert (voided.mu, voided.sigma) == pytest.approx((29.0 - 2.6, 7.5 + (SIGMA - 8.0)))
    assert (restored.mu, restored.sigma) == pytest.approx((later.mu, later.sigma))


def test_a_void_never_makes_sigma_larger_than_a_newcomers_nor_zero():
    assert take_back(Skill(25, 8.3), Skill(25, 8.3), Skill(26, 7.0)).sigma == SIGMA
    assert give_again(Skill(25, 0.5), Skill(25, 8.0), Skill(26, 7.0)).sigma == 0.01
