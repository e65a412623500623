"""What players see of ratings away from the live table (issue 21, docs/ratings.md): the profile's
ratings with their places and charts, the leaderboards with the viewer's own place, the public
ratings API, and ratings beside names in the lobby, on a table's page and in "My games". Every
page answers in a fixed number of queries, whatever the number of players and matches."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.lobby.services import table_join_seat
from games.models import Match, Rating, RatingChange
from games.play.services import SeatSpec
from games.ratings.charts import rating_chart_layout
from games.ratings.model import LEADERBOARD_MIN_GAMES, LEADERBOARD_SIZE
from games.ratings.selectors import (
    ChartPoint,
    leaderboard,
    player_ratings,
    rating_charts,
    rating_moves,
)
from tests.accounts.players import client_for
from tests.games.factories import (
    COMPUTER,
    MatchFactory,
    UserFactory,
    match_play,
    open_table,
    seated_match,
)

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def rating_row(
    user: User,
    variant: str = "hokm4",
    *,
    rating: int = 1600,
    sigma: float = 3.0,
    games: int = 20,
    wins: int = 11,
    days_ago: float = 1,
) -> Rating:
    """A rating row as the services leave it: on its leaderboard unless told otherwise."""
    return Rating.objects.create(
        user=user,
        variant=variant,
        mu=30.0,
        sigma=sigma,
        rating=rating,
        games=games,
        wins=wins,
        last_played_at=timezone.now() - timedelta(days=days_ago),
    )


def rated_history(user: User, variant: str, ratings: list[int]) -> list[Match]:
    """Rating changes from ``ratings[0]`` through each next rating, one rated match each, a day
    apart (the chart's points)."""
    start = timezone.now() - timedelta(days=len(ratings))
    matches = []
    for n, (before, after) in enumerate(zip(ratings, ratings[1:], strict=False)):
        match = Match.objects.create(
            variant=variant, target=1, rated=True, status=Match.Status.FINISHED, winner_side=0
        )
        RatingChange.objects.create(
            match=match,
            user=user,
            variant=variant,
            seat=0,
            mu_before=25,
            sigma_before=5,
            mu_after=26,
            sigma_after=4 if after > 1500 else 7,
            rating_before=before,
            rating_after=after,
            won=after > before,
            created_at=start + timedelta(days=n),
        )
        matches.append(match)
    return matches


_others = itertools.count()


def others(count: int, variant: str = "hokm4", *, base: int = 1700) -> list[User]:
    """``count`` players on the leaderboard of ``variant``, all above ``base`` - count."""
    users = User.objects.bulk_create(
        [User(username=f"{variant}-other-{base}-{n}-{next(_others)}") for n in range(count)]
    )
    Rating.objects.bulk_create(
        [
            Rating(
                user=user,
                variant=variant,
                mu=30,
                sigma=3,
                rating=base - n,
                games=LEADERBOARD_MIN_GAMES,
                wins=3,
                last_played_at=timezone.now(),
            )
            for n, user in enumerate(users)
        ]
    )
    return users


def svgs(html: str) -> list[ET.Element]:
    """Every inline SVG of a page, parsed as XML: it must be well-formed."""
    return [ET.fromstring(svg) for svg in re.findall(r"<svg\b.*?</svg>", html, re.S)]


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


# The profile.


@pytest.fixture
def sara():
    return UserFactory(username="sara")


def test_the_profile_lists_each_rated_family_with_its_matches_place_and_leaderboard(sara):
    rating_row(sara, "hokm4", rating=1650, games=24, wins=15)
    rating_row(sara, "hokm3", rating=1480, sigma=7.0, games=3, wins=1)
    rating_row(sara, "court-piece", rating=1590, days_ago=40)
    others(2, "hokm4", base=1700)

    html = page(Client(), reverse("games:profile", args=["sara"]))

    section = html[html.index('id="ratings-heading"') : html.index('id="hands-heading"')]
    assert section.index("Hokm, four players") < section.index("Hokm, three players")
    assert section.index("Hokm, three players") < section.index("Court Piece")
    assert "Hokm, two players" not in section  # never played rated
    assert ">1650<" in section and "<dd>24</dd>" in section and "<dd>15</dd>" in section
    assert "<dt>Place</dt><dd>3</dd>" in section  # two players above: third
    # A provisional rating carries its "?" and says so to a screen reader.
    assert "1480?" in section and "(provisional)" in section
    assert "at least 10 rated matches, and this rating has 3" in section
    assert "no rated match in the last 30 days" in section
    assert section.count("not ranked") == 2
    for variant in ("hokm4", "hokm3", "court-piece"):
        assert f'href="{reverse("games:leaderboard_variant", args=[variant])}"' in section
    assert "means it is provisional" in section  # the legend of "?"


def test_the_profile_draws_each_rating_over_time_as_a_well_formed_svg(sara):
    rating_row(sara, "hokm4", rating=1580)
    rating_row(sara, "hokm2", rating=1530)
    rated_history(sara, "hokm4", [1500, 1540, 1520, 1580])
    rated_history(sara, "hokm2", [1500, 1530])

    html = page(Client(), reverse("games:profile", args=["sara"]))

    charts = [svg for svg in svgs(html) if "rating-chart__svg" in svg.get("class", "")]
    assert len(charts) == 2
    hokm4 = charts[0]
    assert hokm4.get("viewBox") == "0 0 320 160"
    assert hokm4.get("dir") == "ltr" and hokm4.get("role") == "img"
    assert hokm4.find(f"{SVG}title").text == "Rating over time: Hokm, four players"
    desc = " ".join(hokm4.find(f"{SVG}desc").text.split())
    assert "From 1500 before the first of 3 rated matches" in desc
    assert "to 1580 after the last" in desc and "Highest 1580, lowest 1500" in desc
    labels = [t.text for t in hokm4.iter(f"{SVG}text")]
    assert labels[:2] == ["1580", "1500"]  # the highest and lowest, on their rules
    assert len(labels) == 4  # and the first and last dates
    points = hokm4.find(f"{SVG}polyline").get("points").split()
    assert len(points) == 4 and len(list(hokm4.iter(f"{SVG}circle"))) == 3
    # Time runs left to right; a higher rating is higher up the drawing.
    xs = [float(p.split(",")[0]) for p in points]
    ys = [float(p.split(",")[1]) for p in points]
    assert xs == sorted(xs) and ys[3] < ys[1] < ys[2] < ys[0]


def test_a_player_without_rated_matches_gets_a_friendly_line(sara):
    html = page(Client(), reverse("games:profile", args=["sara"]))

    assert "No rated matches yet." in html
    assert "rating-chart__svg" not in html
    assert f'href="{reverse("games:leaderboard")}"' in html


def test_the_profile_makes_the_same_queries_whatever_the_families_matches_and_players(
    sara, django_assert_num_queries
):
    url = reverse("games:profile", args=["sara"])
    for variant in ("hokm4", "hokm3", "court-piece"):
        rating_row(sara, variant)
        rated_history(sara, variant, [1500, 1510, 1520])
    others(3, "hokm4")
    # The player, his seats (the rating changes here have none of his: no more statistics; the
    # statistics' own count is pinned in tests/games/test_history_stats.py), his ratings with
    # their places, his latest rating change (the charts' cache key), every chart's points.
    with django_assert_num_queries(5):
        small = page(Client(), url)
    # Seen again with no rating changed: the charts come from the cache.
    with django_assert_num_queries(4):
        again = page(Client(), url)
    assert again.count("rating-chart__svg") == small.count("rating-chart__svg") == 3

    for variant in ("hokm4", "hokm3", "court-piece", "hokm2", "hokm2-draw"):
        Rating.objects.update_or_create(
            user=sara,
            variant=variant,
            defaults={
                "mu": 30,
                "sigma": 3,
                "rating": 1600,
                "games": 30,
                "last_played_at": timezone.now(),
            },
        )
        rated_history(sara, variant, list(range(1500, 1530)))
        others(30, variant)
    with django_assert_num_queries(5):
        large = page(Client(), url)

    assert small.count("rating-chart__svg") == 3 and large.count("rating-chart__svg") == 5


def test_the_profile_of_a_player_with_no_rating_reads_no_chart(sara, django_assert_num_queries):
    # The player, his seats (none) and his ratings: no chart to read.
    with django_assert_num_queries(3):
        page(Client(), reverse("games:profile", args=["sara"]))


# The leaderboards.


def board_names(html: str) -> list[str]:
    table = html[html.index('<table class="leaderboard">') :]
    table = table[: table.index("</table>")]
    return re.findall(r'<a href="/players/([^/]+)/">', table)


def test_a_leaderboard_lists_eligible_players_best_first_with_shared_places():
    now = timezone.now()
    for name, rating in [("ali", 1700), ("bita", 1820), ("cyrus", 1700), ("dara", 1650)]:
        rating_row(UserFactory(username=name), rating=rating)
    rating_row(UserFactory(username="few"), rating=1900, games=LEADERBOARD_MIN_GAMES - 1)
    rating_row(UserFactory(username="unsure"), rating=1900, sigma=6.5)
    rating_row(UserFactory(username="away"), rating=1900, days_ago=31)
    rating_row(UserFactory(username="closed", is_active=False), rating=1900)
    rating_row(UserFactory(username="other"), "hokm3", rating=1900)

    lines = leaderboard(variant="hokm4", now=now)
    html = page(Client(), reverse("games:leaderboard_variant", args=["hokm4"]))

    assert [(line.username, line.place) for line in lines] == [
        ("bita", 1),
        ("ali", 2),
        ("cyrus", 2),
        ("dara", 4),
    ]
    assert board_names(html) == ["bita", "ali", "cyrus", "dara"]
    assert re.search(r'leaderboard__place">2</td>\s*<th[^>]*><a href="/players/cyrus/"', html)
    assert "Leaderboard: Hokm, four players" in html
    assert "at least 10 rated matches" in html and "last 30 days" in html


def test_a_leaderboard_shows_the_top_100_and_the_viewers_place_below_them():
    others(LEADERBOARD_SIZE, base=1800)
    me = UserFactory(username="me")
    rating_row(me, rating=1600)

    html = page(client_for(me), reverse("games:leaderboard_variant", args=["hokm4"]))

    assert len(board_names(html)) == LEADERBOARD_SIZE and "me" not in board_names(html)
    assert "Your place: 101" in html and "The list shows the best 100." in html
    assert [standing.place for standing in player_ratings(user=me)] == [101]


def test_the_viewer_on_the_leaderboard_is_marked_in_it():
    others(3, base=1800)
    me = UserFactory(username="me")
    rating_row(me, rating=1799)

    html = page(client_for(me), reverse("games:leaderboard_variant", args=["hokm4"]))

    assert "Your place: 2" in html
    assert re.search(r'<tr class="is-you">\s*<td class="leaderboard__place">2</td>', html)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"games": 4, "sigma": 7.0}, "at least 10 rated matches, and this rating has 4"),
        ({"sigma": 6.6}, "the rating is still provisional"),
        ({"days_ago": 45}, "no rated match in the last 30 days"),
    ],
)
def test_a_viewer_off_the_leaderboard_is_told_why(fields, reason):
    me = UserFactory(username="me")
    rating_row(me, **fields)

    html = page(client_for(me), reverse("games:leaderboard_variant", args=["hokm4"]))

    assert reason in html and "Your place" not in html
    assert "Nobody is on this leaderboard yet." in html


def test_a_viewer_without_a_rated_match_or_signed_out_is_told_so():
    me = UserFactory(username="me")
    url = reverse("games:leaderboard_variant", args=["hokm4"])

    assert "You have no rated match in this game yet." in page(client_for(me), url)
    signed_out = page(Client(), url)
    assert "to see your own place" in signed_out
    assert f'href="{reverse("account_login")}?next=/leaderboard/hokm4/"' in signed_out


def test_each_leaderboard_links_to_the_others_and_an_unknown_game_is_404():
    html = page(Client(), reverse("games:leaderboard_variant", args=["court-piece"]))

    for variant in ("hokm4", "hokm3", "hokm2", "hokm2-draw"):
        assert f'href="/leaderboard/{variant}/"' in html
    assert 'href="/leaderboard/court-piece/" aria-current="page"' in html
    assert Client().get("/leaderboard/chess/").status_code == 404


def test_the_page_of_all_leaderboards_shows_each_familys_top_ten():
    for variant in ("hokm4", "hokm3", "hokm2", "hokm2-draw", "court-piece"):
        others(12, variant)
    me = UserFactory(username="me")
    rating_row(me, "hokm3", rating=1650)

    html = page(client_for(me), reverse("games:leaderboard"))

    sections = html.split('<section class="leaderboard-preview"')[1:]
    assert len(sections) == 5
    assert all(len(board_names(section)) == 10 for section in sections)
    assert "hokm4-other-1700-0-" in sections[0] and "hokm4-other-1700-10-" not in sections[0]
    assert "Your place: 13" in sections[1]  # below the twelve of hokm3, shown all the same
    assert "You have no rated match in this game yet." in sections[0]


@pytest.mark.parametrize("viewer", ["signed out", "signed in"])
def test_the_leaderboards_make_the_same_queries_whatever_the_number_of_players(
    viewer, django_assert_num_queries
):
    me = UserFactory(username="me")
    rating_row(me, rating=1500)
    client = Client() if viewer == "signed out" else client_for(me)
    # Signed in: the session, the user and his sanctions (moderation.middleware), then his own
    # standing. The board: one query; the page of all boards: one per family.
    mine = 4 if viewer == "signed in" else 0
    counts = {"leaderboard_variant": 1 + mine, "leaderboard": 5 + mine}

    def measure() -> dict[str, int]:
        sizes = {}
        for name, count in counts.items():
            args = ["hokm4"] if name == "leaderboard_variant" else []
            with django_assert_num_queries(count):
                sizes[name] = len(board_names(page(client, reverse(f"games:{name}", args=args))))
        return sizes

    others(3)
    assert measure() == {"leaderboard_variant": 4, "leaderboard": 4}
    others(30, base=1650)
    assert measure() == {"leaderboard_variant": 34, "leaderboard": 10}


# The API.


def api(name: str, **headers: str):
    return Client().get(f"/api/players/{name}/", headers=headers)


def test_the_api_answers_a_players_public_ratings_games_and_ranks_without_a_token(sara):
    User.objects.filter(pk=sara.pk).update(display_name="Sara K")
    rating_row(sara, "hokm4", rating=1650, games=24, wins=15)
    rating_row(sara, "hokm3", rating=1480, sigma=7.0, games=3, wins=1)
    others(2, "hokm4", base=1700)
    seated_match(sara, COMPUTER, COMPUTER, COMPUTER, target=1)

    response = api("sara")

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "username": "sara",
        "display_name": "Sara K",
        "profile": "/players/sara/",
        "matches": 1,
        "ratings": {
            "hokm4": {"rating": 1650, "provisional": False, "games": 24, "wins": 15, "rank": 3},
            "hokm3": {"rating": 1480, "provisional": True, "games": 3, "wins": 1, "rank": None},
            "hokm2": {"rating": 1500, "provisional": True, "games": 0, "wins": 0, "rank": None},
            "hokm2-draw": {
                "rating": 1500,
                "provisional": True,
                "games": 0,
                "wins": 0,
                "rank": None,
            },
            "court-piece": {
                "rating": 1500,
                "provisional": True,
                "games": 0,
                "wins": 0,
                "rank": None,
            },
        },
    }


def test_the_api_takes_the_name_in_any_letter_case_without_its_slash_and_head(sara):
    assert api("SARA").json()["username"] == "sara"
    assert Client().get("/api/players/sara").json()["username"] == "sara"
    assert Client().head("/api/players/sara/").status_code == 200


def test_the_api_does_not_look_at_a_token(sara):
    response = api("sara", Authorization="Bearer hokm_not-a-token")

    assert response.status_code == 200 and response.json()["display_name"] is None


@pytest.mark.parametrize("name", ["nobody", "closed"])
def test_the_api_answers_404_in_its_error_shape_for_an_unknown_or_closed_account(name):
    UserFactory(username="closed", is_active=False)

    response = api(name, **{"Accept-Language": "en"})

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "no player has this name"}}


def test_the_api_refuses_other_methods_in_its_error_shape(sara):
    response = Client().post("/api/players/sara/")

    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_api_makes_the_same_queries_whatever_the_number_of_players(
    sara, django_assert_num_queries
):
    for variant in ("hokm4", "hokm3"):
        rating_row(sara, variant)
    others(3)
    # The player, his ratings with their places, his finished matches.
    with django_assert_num_queries(3):
        assert api("sara").json()["ratings"]["hokm4"]["rank"] == 4
    for variant in ("hokm4", "hokm3", "court-piece"):
        others(30, variant, base=1800)
    with django_assert_num_queries(3):
        assert api("sara").json()["ratings"]["hokm4"]["rank"] == 34


# Ratings beside names: the lobby, a table's page, "My games".


def seated_table(variant: str, creator: User, *people: User):
    """A table opened by ``creator`` (in seat 0), ``people`` in the next seats."""
    table = open_table(creator, variant=variant)
    for index, person in enumerate(people, start=1):
        table_join_seat(table=table, user=person, seat_index=index)
    return table


def lobby_ratings(html: str) -> list[str]:
    return re.findall(
        r'class="lobby-seat__rating muted"><span class="rating-tag[^"]*"[^>]*>([^<]+)', html
    )


def test_the_lobby_shows_each_seated_players_rating_in_the_tables_variant(sara):
    rating_row(sara, "hokm4", rating=1650)
    rating_row(sara, "hokm3", rating=1480, sigma=7.0)
    seated_table("hokm4", sara)
    seated_table("hokm3", UserFactory(), sara)

    html = page(Client(), reverse("games:lobby"))

    # Newest table first: hokm3's newcomer and Sara, then Sara at hokm4.
    assert lobby_ratings(html) == ["1500?", "1480?", "1650"]
    assert "(provisional)" in html


@pytest.mark.parametrize("count", [3, 30])
def test_the_lobby_reads_every_tables_ratings_in_one_query(count, django_assert_num_queries):
    variants = ["hokm4", "hokm3", "hokm2", "court-piece"]
    for n in range(count):
        player = UserFactory()
        rating_row(player, variants[n % 4])
        seated_table(variants[n % 4], player)
    # Tables with their seats and users (two), their ratings (one), the matches to watch (one);
    # nobody signed in.
    with django_assert_num_queries(4):
        html = page(Client(), reverse("games:lobby"))
    assert lobby_ratings(html) == ["1600"] * count


def test_a_tables_page_shows_the_seated_players_ratings(sara):
    rating_row(sara, "hokm2", rating=1710)
    table = seated_table("hokm2", sara)

    html = page(Client(), reverse("games:table_detail", args=[table.pk]))

    assert re.search(r'class="seat__rating"><span class="rating-tag"[^>]*>1710<', html)
    assert "css/ratings.css" in html


def history_rows(html: str) -> list[str]:
    return html.split('<li class="history-item')[1:]


def test_my_games_marks_rated_matches_and_shows_each_players_rating_after_it():
    me, rival = UserFactory(username="me"), UserFactory(username="rival")
    match = MatchFactory(
        variant="hokm2",
        target=1,
        rated=True,
        clock_seconds=30,
        seats=[SeatSpec(name="me", user=me), SeatSpec(name="rival", user=rival)],
    )
    match_play(match, rng_seed=3)
    seated_match(me, COMPUTER, target=1, variant="hokm2")
    moves = rating_moves(match_ids=[match.pk])[match.pk]
    mine, theirs = moves[0], moves[1]

    rows = history_rows(page(client_for(me), "/history/"))

    casual, rated = rows
    assert 'history-mark">casual<' in casual and "Your rating" not in casual
    assert 'history-mark history-mark--rated">rated<' in rated
    assert 'Your rating <span class="rating-move-text' in rated
    for move in (mine, theirs):
        assert f'>{move.text} <span class="rating-move-text__delta">({move.delta_text})' in rated
    assert mine.before == theirs.before == 1500 and mine.delta != 0


def test_my_games_shows_no_rating_change_of_a_voided_match():
    me = UserFactory(username="me")
    _rated_seated_match(me, UserFactory(), 0)
    Match.objects.update(voided=True)

    (row,) = history_rows(page(client_for(me), "/history/"))

    assert "rated<" in row and "Your rating" not in row


def _rated_seated_match(me: User, rival: User, n: int) -> None:
    match = seated_match(me, rival, variant="hokm2", play=False, rng_seed=n)
    Match.objects.filter(pk=match.pk).update(
        rated=True, status=Match.Status.FINISHED, winner_side=n % 2
    )
    for seat, user in enumerate((me, rival)):
        RatingChange.objects.create(
            match=match,
            user=user,
            variant="hokm2",
            seat=seat,
            mu_before=25,
            sigma_before=5,
            mu_after=25,
            sigma_after=5,
            rating_before=1500,
            rating_after=1510 if seat == n % 2 else 1490,
        )


def test_my_games_reads_the_ratings_of_a_page_in_one_query(django_assert_num_queries):
    me, rival = UserFactory(username="me"), UserFactory(username="rival")
    client = client_for(me)
    _rated_seated_match(me, rival, 0)
    # Session, user, sanctions, the count, the page, its seats, the usernames to suggest, and
    # the rating changes of its rated matches.
    with django_assert_num_queries(8):
        small = history_rows(page(client, "/history/"))
    for n in range(1, 25):
        _rated_seated_match(me, rival, n)
    with django_assert_num_queries(8):
        large = history_rows(page(client, "/history/"))
    assert len(small) == 1 and len(large) == 20
    assert all("Your rating" in row and "rival" in row for row in large)


# The selectors and the chart's layout.


def test_a_void_takes_a_matchs_rating_changes_out_of_view_and_a_restore_brings_them_back(sara):
    (match,) = rated_history(sara, "hokm4", [1500, 1530])
    change = RatingChange.objects.get()

    def again(kind: str) -> None:
        change.pk = None
        change.kind = kind
        change.save()

    assert rating_moves(match_ids=[match.pk])[match.pk][0].delta_text == "+30"
    again(RatingChange.Kind.VOID)
    assert rating_moves(match_ids=[match.pk]) == {}
    again(RatingChange.Kind.RESTORE)
    assert rating_moves(match_ids=[match.pk])[match.pk][0].text == "1530"


def test_player_ratings_and_charts_read_every_family_in_one_query_each(
    sara, django_assert_num_queries
):
    for variant in ("hokm4", "hokm2"):
        rating_row(sara, variant)
        rated_history(sara, variant, [1500, 1520, 1540])

    with django_assert_num_queries(1):
        standings = player_ratings(user=sara)
    with django_assert_num_queries(1):
        charts = rating_charts(user=sara, variants=["hokm4", "hokm2"], limit=1)

    assert [s.variant for s in standings] == ["hokm4", "hokm2"]
    # The latest change of each family, from the rating before it.
    assert [p.rating for p in charts["hokm4"]] == [1520, 1540]
    assert [p.rating for p in charts["hokm2"]] == [1520, 1540]


def test_a_chart_needs_a_match_and_keeps_a_flat_line_in_the_middle():
    at = timezone.now()
    assert rating_chart_layout([ChartPoint(at=at, rating=1500)], variant="hokm4") is None

    chart = rating_chart_layout(
        [ChartPoint(at=at, rating=1500), ChartPoint(at=at, rating=1500)], variant="hokm4"
    )

    assert chart is not None and chart.high == chart.low == 1500
    assert chart.line == "40,73 310,73"  # halfway down the plot, not on an edge
    assert "," not in chart.high_y  # no locale's decimal comma


def test_a_new_rating_change_draws_the_chart_anew(sara):
    url = reverse("games:profile", args=["sara"])
    rating_row(sara, "hokm4")
    rated_history(sara, "hokm4", [1500, 1510, 1520])
    before = page(Client(), url)

    rated_history(sara, "hokm4", [1520, 1777])
    after = page(Client(), url)

    assert "1777" not in before and "1777" in after
