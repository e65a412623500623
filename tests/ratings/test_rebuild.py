"""``python manage.py ratings_rebuild`` (docs/ratings.md, "Exactly once, and rebuildable"): over a
few hundred rated matches of every variant, with players who left, voids and lifted voids, the
replay of the stored history arrives at the stored numbers; numbers changed behind its back make
``--check`` fail, and a plain run writes them back."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from accounts.models import User
from games.engine import get_variant
from games.models import Match, Rating, RatingChange
from games.ratings.model import MU, SIGMA, shown
from games.ratings.services import match_ratings_restore, match_ratings_void, ratings_rebuild
from tests.games.factories import UserFactory
from tests.ratings.matches import finished_match_rate, finished_match_store, rebuild_check

pytestmark = pytest.mark.django_db

VARIANTS = ["hokm4", "hokm3", "hokm2", "hokm2-draw", "court-piece"]


def void(match: Match) -> list[RatingChange]:
    """A moderator's void as ``moderation.services.sanction_apply`` makes it (the ratings' part)."""
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        locked.voided = True
        locked.save(update_fields=["voided"])
        return match_ratings_void(match=locked)


def lift(match: Match) -> list[RatingChange]:
    """A void lifted, as ``moderation.services.sanction_lift`` does it."""
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        locked.voided = False
        locked.save(update_fields=["voided"])
        return match_ratings_restore(match=locked)


@dataclass
class History:
    players: list[User]
    matches: list[Match] = field(default_factory=list)
    events: int = 0  # matches rated, voids and lifts that changed a rating
    leavers: int = 0
    voids: int = 0
    lifts: int = 0


def result(rng: random.Random, variant: str) -> tuple[int, list[int]]:
    """A winner and the points: hokm3's others often equal (a tie for second); Court Piece's
    winner sometimes on no more courts than the loser (R9.10.2)."""
    sides = get_variant(variant).sides
    winner = rng.randrange(sides)
    if variant == "court-piece":
        scores = [rng.randint(0, 2) for _ in range(sides)]
    else:
        scores = [7 if side == winner else rng.randint(3, 6) for side in range(sides)]
    return winner, scores


def history_generate(seed: int, matches: int, *, players: int = 16) -> History:
    """``matches`` rated matches among ``players``, each rated as it finishes; about one in ten
    with a player who left, and now and then a void of an earlier match or the lifting of one.
    Some matches are voided before they end (a report during play): rated only if lifted."""
    rng = random.Random(seed)
    history = History(players=[UserFactory() for _ in range(players)])
    voided: list[Match] = []
    for _ in range(matches):
        variant = rng.choice(VARIANTS)
        seated = rng.sample(history.players, get_variant(variant).players)
        winner, scores = result(rng, variant)
        left = [rng.randrange(len(seated))] if rng.random() < 0.1 else []
        match, _ = finished_match_store(
            variant, seated, winner_side=winner, scores=scores, left=left
        )
        history.leavers += len(left)
        if rng.random() < 0.03:  # voided while it was played: its end changes no rating
            Match.objects.filter(pk=match.pk).update(voided=True)
            voided.append(match)
        history.events += bool(finished_match_rate(match))
        history.matches.append(match)
        if rng.random() < 0.06:
            target = rng.choice([m for m in history.matches if m not in voided])
            history.events += bool(void(target))
            history.voids += 1
            voided.append(target)
        if voided and rng.random() < 0.04:
            target = voided.pop(rng.randrange(len(voided)))
            history.events += bool(lift(target))
            history.lifts += 1
    return history


def rebuild(*args: str) -> str:
    out = StringIO()
    call_command("ratings_rebuild", *args, stdout=out)
    return out.getvalue()


def stored() -> tuple[list[tuple], list[tuple]]:
    """Every rating and every rating change as stored."""
    ratings = list(
        Rating.objects.order_by("user_id", "variant").values_list(
            "user_id", "variant", "mu", "sigma", "rating", "games", "wins", "last_played_at"
        )
    )
    changes = list(
        RatingChange.objects.order_by("id").values_list(
            "id", "kind", "mu_before", "sigma_before", "mu_after", "sigma_after", "won"
        )
    )
    return ratings, changes


def test_the_rebuild_of_a_long_history_arrives_at_the_stored_numbers():
    history = history_generate(seed=21, matches=300)

    report = rebuild_check()

    # The mix is what the test claims to cover.
    assert history.leavers >= 20 and history.voids >= 10 and history.lifts >= 5
    assert len({m.variant for m in history.matches}) == len(VARIANTS)
    ratings = Rating.objects.count()
    assert f"{history.events} rating events replayed; {ratings} ratings, 0 differing;" in report
    assert "0 stored changes differing." in report
    # Every player's games are his rated matches that stand.
    standing = RatingChange.objects.filter(kind="match", match__voided=False)
    for rating in Rating.objects.all():
        mine = standing.filter(user_id=rating.user_id, variant=rating.variant)
        assert (rating.games, rating.wins) == (mine.count(), mine.filter(won=True).count())


def test_numbers_changed_behind_the_history_fail_the_check_and_a_run_writes_them_back():
    history_generate(seed=22, matches=120)
    before = stored()
    rating = Rating.objects.order_by("user_id", "variant")[5]
    Rating.objects.filter(pk=rating.pk).update(mu=rating.mu + 1, rating=rating.rating + 20)
    change = RatingChange.objects.filter(kind="match").order_by("-id")[17]
    RatingChange.objects.filter(pk=change.pk).update(mu_after=change.mu_after - 0.5)
    void_change = RatingChange.objects.filter(kind="void").first()
    RatingChange.objects.filter(pk=void_change.pk).update(won=not void_change.won)

    with pytest.raises(CommandError, match="differ from the history"):
        rebuild("--check")
    assert stored() != before  # the check wrote nothing

    report = rebuild()

    assert f"user {rating.user_id} {rating.variant}:" in report
    assert "2 stored changes differing." in report
    assert "Written anew from the history." in report
    assert stored() == before
    assert "0 differing; 0 stored changes differing." in rebuild_check()


def test_a_rating_without_its_row_or_without_a_history_is_made_anew():
    history = history_generate(seed=23, matches=40)
    before = stored()
    gone = Rating.objects.order_by("user_id", "variant")[5]
    gone.delete()
    stray = Rating.objects.create(
        user=UserFactory(), variant="hokm4", mu=31.0, sigma=3.0, rating=1940, games=12, wins=9
    )

    report = ratings_rebuild(write=True)

    assert sorted(line.split(":")[0] for line in report.ratings_differing) == sorted(
        [f"user {gone.user_id} {gone.variant}", f"user {stray.user_id} hokm4"]
    )
    assert f"user {gone.user_id} {gone.variant}: no rating -> " in "".join(report.ratings_differing)
    assert Rating.objects.exclude(pk=stray.pk).count() == len(before[0])
    assert stored()[1] == before[1]
    assert [r for r in stored()[0] if r[0] != stray.user_id] == before[0]
    stray.refresh_from_db()
    # No rated match: a newcomer's rating.
    assert (stray.mu, stray.sigma, stray.rating, stray.games, stray.wins) == (
        MU,
        SIGMA,
        shown(MU, SIGMA),
        0,
        0,
    )
    assert history.events > 0
    assert "0 differing; 0 stored changes differing." in rebuild_check()


def test_the_check_of_no_history_passes():
    assert "0 rating events replayed; 0 ratings, 0 differing;" in rebuild_check()


def test_a_deleted_account_leaves_the_others_history_rebuildable():
    gone, *others = [UserFactory() for _ in range(5)]
    # The account plays twice (his second match from a rating he earned), then a void of his
    # first match takes its changes back from the others.
    first, _ = finished_match_store("hokm4", [gone, *others[:3]], winner_side=0, scores=[1, 0])
    finished_match_rate(first)
    second, _ = finished_match_store(
        "hokm4", [others[3], gone, others[0], others[1]], winner_side=1, scores=[0, 1]
    )
    finished_match_rate(second)
    match_ratings_void(match=first)
    stored = {r.user_id: (r.mu, r.sigma, r.games) for r in Rating.objects.exclude(user=gone)}

    gone.delete()

    # His changes stay (without him): the others' were computed from his rating of the time.
    assert RatingChange.objects.filter(user__isnull=True).count() == 3
    assert "0 differing; 0 stored changes differing" in rebuild_check()
    ratings_rebuild()
    assert {r.user_id: (r.mu, r.sigma, r.games) for r in Rating.objects.all()} == stored
