""" "My games" (games.history.views.my_games): the signed-in player's matches, newest first, with
filters that combine, pages, the htmx fragment and a URL that can be shared."""

from __future__ import annotations

import datetime
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.engine import get_variant
from games.history.selectors import HISTORY_PAGE_SIZE
from games.models import Match
from tests.games.factories import (
    COMPUTER,
    TableFactory,
    UserFactory,
    seated_match,
)

pytestmark = pytest.mark.django_db

URL = "/history/"


def created_on(match: Match, day: datetime.date, hour: int = 12) -> None:
    """Date a match back: the services stamp ``created_at`` with the time of play."""
    at = timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour)))
    Match.objects.filter(pk=match.pk).update(created_at=at)


def listed(response) -> list[int]:
    """The ids of the matches a history response lists, in order."""
    return [
        int(pk) for pk in re.findall(r'href="/match/(\d+)/summary/"', response.content.decode())
    ]


def my_side(match: Match, user) -> int:
    seat = match.seats.get(user=user).index
    return get_variant(match.variant).side_of(seat)


@pytest.fixture
def me():
    return UserFactory(username="me")


@pytest.fixture
def friend():
    return UserFactory(username="friend")


@pytest.fixture
def rival():
    return UserFactory(username="rival")


@pytest.fixture
def stranger():
    return UserFactory(username="stranger")


@pytest.fixture
def signed_in(client, me):
    client.force_login(me)
    return client


# Who sees what.


def test_history_requires_signing_in(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_lists_only_my_matches_newest_first(signed_in, me, friend, rival, stranger):
    first = seated_match(me, friend, rival, stranger, play=False)
    others = seated_match(friend, rival, stranger, COMPUTER, play=False)
    second = seated_match(rival, me, COMPUTER, friend, play=False)
    # A private table's match I did not sit in stays out, even at a table I created.
    private = TableFactory(is_private=True, created_by=me)
    hidden = seated_match(friend, rival, stranger, COMPUTER, table=private, play=False)
    ids = listed(signed_in.get(URL))
    assert ids == [second.pk, first.pk]
    assert others.pk not in ids and hidden.pk not in ids


def test_an_empty_history_says_so(signed_in):
    response = signed_in.get(URL)
    assert response.status_code == 200
    assert "You have not played a game yet." in response.content.decode()


def test_each_row_shows_partners_opponents_computers_and_score(signed_in, me, friend, rival):
    match = seated_match(me, rival, friend, COMPUTER, target=3, rng_seed=4)
    html = signed_in.get(URL).content.decode()
    row = html[
        html.index('<li class="history-item') : html.index("</li>", html.index("history-item"))
    ]
    with_part, against_part = row.split("Against")
    assert "friend" in with_part and "rival" not in with_part
    assert "rival" in against_part and "Medium bot 4" in against_part
    assert "(computer)" in against_part
    side = my_side(match, me)
    scores = [int(n) for n in re.findall(r'class="history-score[^"]*">(\d+)<', row)]
    assert scores == [match.scores[side], match.scores[1 - side]]
    assert ("Won" if match.winner_side == side else "Lost") in row
    assert f'href="/match/{match.pk}/replay/"' in row
    # The live table is offered only while the match is being played.
    assert f'href="/match/{match.pk}/"' not in row


def test_a_match_being_played_links_back_to_the_table(signed_in, me, friend, rival):
    match = seated_match(me, COMPUTER, friend, rival, play=False)
    html = signed_in.get(URL).content.decode()
    assert f'href="/match/{match.pk}/"' in html
    assert "Playing" in html


# Each filter alone.


def test_filter_by_variant(signed_in, me, friend, rival):
    four = seated_match(me, friend, rival, COMPUTER, play=False)
    three = seated_match(friend, me, rival, variant="hokm3", play=False)
    two = seated_match(me, rival, variant="hokm2", play=False)
    assert listed(signed_in.get(URL, {"variant": "hokm3"})) == [three.pk]
    assert listed(signed_in.get(URL, {"variant": "hokm2"})) == [two.pk]
    assert listed(signed_in.get(URL, {"variant": "hokm4"})) == [four.pk]
    assert listed(signed_in.get(URL, {"variant": ""})) == [two.pk, three.pk, four.pk]


def test_filter_by_result_counts_only_finished_matches(signed_in, me, friend, rival):
    finished = _finished_mix(me, friend, rival)
    won = {m.pk for m in finished if m.winner_side == my_side(m, me)}
    lost = {m.pk for m in finished} - won
    assert won and lost, "the seeds give both results"
    playing = seated_match(me, friend, rival, COMPUTER, play=False)
    abandoned = seated_match(me, friend, rival, COMPUTER, play=False)
    # No service abandons a live match yet; a stored one still counts as neither won nor lost.
    Match.objects.filter(pk=abandoned.pk).update(status=Match.Status.ABANDONED)
    assert set(listed(signed_in.get(URL, {"result": "won"}))) == won
    assert set(listed(signed_in.get(URL, {"result": "lost"}))) == lost
    everything = set(listed(signed_in.get(URL)))
    assert everything == won | lost | {playing.pk, abandoned.pk}


def test_a_voided_match_is_listed_as_void_not_abandoned(signed_in, me, friend, rival):
    match = seated_match(me, friend, rival, COMPUTER, rng_seed=1)
    assert match.status == Match.Status.FINISHED
    Match.objects.filter(pk=match.pk).update(voided=True)
    html = signed_in.get(URL).content.decode()
    assert listed(signed_in.get(URL)) == [match.pk]
    assert "result-badge--void" in html and "Void" in html
    assert "Abandoned" not in html and "result-badge--won" not in html
    assert "result-badge--lost" not in html


def _finished_mix(me, friend, rival) -> list[Match]:
    """Finished matches of every kind of side: a team of two, one seat of three, one of two."""
    return [
        seated_match(me, rival, friend, COMPUTER, rng_seed=1),
        seated_match(rival, me, COMPUTER, friend, rng_seed=2),
        seated_match(me, rival, friend, variant="hokm3", rng_seed=3),
        seated_match(rival, me, variant="hokm2", rng_seed=4),
        seated_match(me, rival, variant="hokm2", rng_seed=5),
        seated_match(me, COMPUTER, rival, friend, rng_seed=6),
    ]


def test_filter_with_partner_is_the_same_side_R1_4(signed_in, me, friend, rival):
    partners = seated_match(me, rival, friend, COMPUTER, play=False)  # seats 0 and 2
    partners_too = seated_match(COMPUTER, friend, rival, me, play=False)  # seats 1 and 3
    opposed = seated_match(me, friend, rival, COMPUTER, play=False)  # seats 0 and 1
    three = seated_match(me, friend, rival, variant="hokm3", play=False)
    assert listed(signed_in.get(URL, {"partner": "friend"})) == [partners_too.pk, partners.pk]
    # Usernames are matched whatever their letter case.
    assert listed(signed_in.get(URL, {"partner": "FRIEND"})) == [partners_too.pk, partners.pk]
    assert listed(signed_in.get(URL, {"opponent": "friend"})) == [three.pk, opposed.pk]
    # In the three- and two-player games every other player is an opponent, none a partner.
    assert three.pk not in listed(signed_in.get(URL, {"partner": "rival"}))
    assert three.pk in listed(signed_in.get(URL, {"opponent": "rival"}))


def test_filter_by_a_player_i_never_met_lists_nothing(signed_in, me, friend, rival):
    seated_match(me, friend, rival, COMPUTER, play=False)
    response = signed_in.get(URL, {"opponent": "nobody"})
    assert response.status_code == 200
    assert listed(response) == []
    assert "No game matches these filters." in response.content.decode()


def test_i_am_neither_my_own_partner_nor_my_own_opponent(signed_in, me, friend, rival):
    seated_match(me, friend, rival, COMPUTER, play=False)
    assert listed(signed_in.get(URL, {"partner": "me"})) == []
    assert listed(signed_in.get(URL, {"opponent": "me"})) == []


def test_filter_with_or_without_computer_players(signed_in, me, friend, rival, stranger):
    people = seated_match(me, friend, rival, stranger, play=False)
    computers = seated_match(me, COMPUTER, friend, COMPUTER, play=False)
    assert listed(signed_in.get(URL, {"computers": "with"})) == [computers.pk]
    assert listed(signed_in.get(URL, {"computers": "without"})) == [people.pk]


def test_filter_by_date_range_includes_both_days(signed_in, me, friend, rival):
    days = [datetime.date(2025, 3, d) for d in (1, 2, 3, 4)]
    matches = []
    for day in days:
        match = seated_match(me, friend, rival, COMPUTER, play=False)
        created_on(match, day, hour=23 if day.day == 3 else 0)
        matches.append(match)
    a, b, c, d = (m.pk for m in matches)
    assert listed(signed_in.get(URL, {"date_from": "2025-03-02", "date_to": "2025-03-03"})) == [
        c,
        b,
    ]
    assert listed(signed_in.get(URL, {"date_from": "2025-03-03"})) == [d, c]
    assert listed(signed_in.get(URL, {"date_to": "2025-03-01"})) == [a]
    assert listed(signed_in.get(URL, {"date_from": "2025-03-02", "date_to": "2025-03-02"})) == [b]


def test_the_first_and_last_days_a_date_can_be_are_filters_like_any_other(
    signed_in, me, friend, rival
):
    match = seated_match(me, friend, rival, COMPUTER, play=False)
    created_on(match, datetime.date(2025, 3, 1))
    for query in (
        {"date_to": "9999-12-31"},
        {"date_from": "0001-01-01", "date_to": "9999-12-31"},
    ):
        assert listed(signed_in.get(URL, query)) == [match.pk]
        response = signed_in.get(URL, query, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
    assert listed(signed_in.get(URL, {"date_from": "9999-12-31"})) == []


# Filters combined.


def test_filters_combine(signed_in, me, friend, rival, stranger):
    old = seated_match(rival, me, COMPUTER, friend, play=False)
    created_on(old, datetime.date(2024, 6, 10))
    target = seated_match(rival, me, COMPUTER, friend, play=False)  # hokm4, computer, vs rival
    no_computer = seated_match(rival, me, stranger, friend, play=False)
    rival_partner = seated_match(me, friend, rival, COMPUTER, play=False)
    other_game = seated_match(me, rival, variant="hokm2", play=False)
    for match in (target, no_computer, rival_partner, other_game):
        created_on(match, datetime.date(2025, 6, 10))
    query = {
        "variant": "hokm4",
        "opponent": "rival",
        "partner": "friend",
        "computers": "with",
        "date_from": "2025-01-01",
    }
    assert listed(signed_in.get(URL, query)) == [target.pk]
    assert listed(signed_in.get(URL, query | {"computers": ""})) == [no_computer.pk, target.pk]
    assert listed(signed_in.get(URL, query | {"date_from": ""})) == [target.pk, old.pk]
    assert listed(signed_in.get(URL, query | {"result": "won"})) == []
    without_partner = listed(signed_in.get(URL, query | {"partner": "", "variant": ""}))
    assert without_partner == [target.pk]


def test_result_combines_with_a_player(signed_in, me, friend, rival):
    matches = _finished_mix(me, friend, rival)
    against_rival_won = {
        m.pk
        for m in matches
        if m.winner_side == my_side(m, me)
        and my_side(m, rival) != my_side(m, me)
        and m.seats.filter(user=rival).exists()
    }
    assert set(listed(signed_in.get(URL, {"opponent": "rival", "result": "won"}))) == (
        against_rival_won
    )


# Invalid values: a clear message on the form, never a 500.


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"variant": "chess"}, "variant", "Select a valid choice."),
        ({"result": "draw"}, "result", "Select a valid choice."),
        ({"computers": "some"}, "computers", "Select a valid choice."),
        ({"partner": "no spaces please"}, "partner", "Enter a username"),
        ({"opponent": "x" * 151}, "opponent", "at most 150 characters"),
        ({"date_from": "yesterday"}, "date_from", "Enter a date as year, month and day"),
        ({"date_to": "2025-02-30"}, "date_to", "Enter a date as year, month and day"),
        (
            {"date_from": "2025-03-02", "date_to": "2025-03-01"},
            "date_to",
            "The last day comes before the first.",
        ),
    ],
)
def test_invalid_filters_are_explained_on_the_form(signed_in, me, query, field, message):
    seated_match(me, COMPUTER, COMPUTER, COMPUTER, play=False)
    response = signed_in.get(URL, query)
    assert response.status_code == 200
    html = response.content.decode()
    error = re.search(rf'<div id="history-error-{field}" class="history-error">(.*?)</div>', html)
    assert error and message in error.group(1)
    assert listed(response) == []
    assert "Some filters are not valid" in html
    # The same message reaches the form out of band when htmx asks for the list alone.
    fragment = signed_in.get(URL, query, headers={"HX-Request": "true"}).content.decode()
    oob = re.search(
        rf'<div id="history-error-{field}" class="history-error" hx-swap-oob="true">(.*?)</div>',
        fragment,
    )
    assert oob and message in oob.group(1)


# Pages.


@pytest.fixture
def many_matches(me, friend, rival):
    return [
        seated_match(me, friend, rival, COMPUTER, play=False) for _ in range(HISTORY_PAGE_SIZE + 5)
    ]


def test_pages_of_twenty_newest_first(signed_in, many_matches):
    newest_first = [m.pk for m in reversed(many_matches)]
    page_one = signed_in.get(URL)
    assert listed(page_one) == newest_first[:HISTORY_PAGE_SIZE]
    html = page_one.content.decode()
    assert "25 games" in html and "Page 1 of 2" in html
    assert 'rel="next"' in html and 'rel="prev"' not in html
    page_two = signed_in.get(URL, {"page": "2"})
    assert listed(page_two) == newest_first[HISTORY_PAGE_SIZE:]
    assert 'rel="prev"' in page_two.content.decode()


def test_a_page_out_of_range_shows_the_last_and_a_bad_one_the_first(signed_in, many_matches):
    newest_first = [m.pk for m in reversed(many_matches)]
    assert listed(signed_in.get(URL, {"page": "99"})) == newest_first[HISTORY_PAGE_SIZE:]
    assert listed(signed_in.get(URL, {"page": "0"})) == newest_first[HISTORY_PAGE_SIZE:]
    assert listed(signed_in.get(URL, {"page": "first"})) == newest_first[:HISTORY_PAGE_SIZE]


def test_page_links_keep_the_filters(signed_in, many_matches):
    html = signed_in.get(URL, {"variant": "hokm4", "partner": "rival"}).content.decode()
    assert 'href="?variant=hokm4&amp;partner=rival&amp;page=2"' in html
    assert 'hx-get="?variant=hokm4&amp;partner=rival&amp;page=2"' in html


# htmx: the fragment alone, and a URL to share.


def test_htmx_request_gets_the_list_fragment_only(signed_in, me, friend, rival):
    match = seated_match(me, friend, rival, COMPUTER, play=False)
    response = signed_in.get(URL, {"variant": "hokm4"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert listed(response) == [match.pk]
    assert "<html" not in html and "<form" not in html and 'id="history-results"' not in html
    assert "HX-Request" in response["Vary"]


def test_full_page_embeds_the_same_list(signed_in, me, friend, rival):
    seated_match(me, friend, rival, COMPUTER, play=False)
    page = signed_in.get(URL, {"variant": "hokm4"})
    html = page.content.decode()
    assert "<html" in html and 'id="history-results"' in html
    fragment = signed_in.get(URL, {"variant": "hokm4"}, headers={"HX-Request": "true"})
    assert listed(page) == listed(fragment)
    assert "HX-Request" in page["Vary"]
    # The form asks for the list with htmx on every change and puts the URL in the address bar.
    form = re.search(r"<form class=\"history-filters[^>]*>", html, re.S).group(0)
    assert 'hx-get="/history/"' in form and 'hx-target="#history-results"' in form
    assert 'hx-push-url="true"' in form and "keyup changed delay:" in form and "change" in form


def test_history_restore_gets_the_whole_page(signed_in, me):
    headers = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
    html = signed_in.get(URL, headers=headers).content.decode()
    assert "<html" in html and "<form" in html


def test_shareable_url_round_trip(signed_in, me, friend, rival, many_matches):
    query = {
        "variant": "hokm4",
        "result": "",
        "partner": "rival",
        "opponent": "",
        "computers": "with",
        "date_from": "",
        "date_to": timezone.localdate().isoformat(),
        "page": "2",
    }
    fragment = signed_in.get(URL, query, headers={"HX-Request": "true"})
    pushed = fragment["HX-Push-Url"]
    parts = urlsplit(pushed)
    assert parts.path == URL
    # Empty filters are left out of the address to share; the page is kept.
    assert parse_qs(parts.query) == {
        "variant": ["hokm4"],
        "partner": ["rival"],
        "computers": ["with"],
        "date_to": [query["date_to"]],
        "page": ["2"],
    }
    shared = signed_in.get(pushed)
    html = shared.content.decode()
    assert "<html" in html
    assert listed(shared) == listed(fragment) and len(listed(shared)) == 5
    assert 'value="rival"' in html
    assert '<option value="with" selected>' in html
    assert '<option value="hokm4" selected>' in html
    assert f'value="{query["date_to"]}"' in html


def test_first_page_url_has_no_page_number(signed_in, me, friend, rival):
    seated_match(me, friend, rival, COMPUTER, play=False)
    response = signed_in.get(URL, {"variant": "", "page": "1"}, headers={"HX-Request": "true"})
    assert response["HX-Push-Url"] == URL


# A fixed number of queries, whatever the number of matches and the filters.

ALL_FILTERS = {
    "variant": "hokm4",
    "partner": "friend",
    "opponent": "rival",
    "computers": "with",
    "date_from": "2000-01-01",
    "date_to": "2100-01-01",
}


@pytest.mark.parametrize("query", [{}, ALL_FILTERS])
def test_query_count_is_fixed(signed_in, me, friend, rival, django_assert_num_queries, query):
    seated_match(me, rival, friend, COMPUTER, play=False)
    # session, user, his sanctions (moderation.middleware), the count, the page, the page's seats,
    # the usernames to suggest
    with django_assert_num_queries(7):
        small = signed_in.get(URL, query)
    for _ in range(HISTORY_PAGE_SIZE + 5):
        seated_match(me, rival, friend, COMPUTER, play=False)
    with django_assert_num_queries(7):
        large = signed_in.get(URL, query)
    with django_assert_num_queries(6):
        fragment = signed_in.get(URL, query | {"page": "2"}, headers={"HX-Request": "true"})
    assert len(listed(small)) == 1
    assert len(listed(large)) == HISTORY_PAGE_SIZE and len(listed(fragment)) == 6


@pytest.mark.parametrize("result", ["won", "lost"])
def test_query_count_with_a_result_is_fixed(
    signed_in, me, friend, rival, django_assert_num_queries, result
):
    _finished_mix(me, friend, rival)
    query = {"result": result, "date_to": "2100-01-01"}
    with django_assert_num_queries(7):
        before = listed(signed_in.get(URL, query))
    for _ in range(HISTORY_PAGE_SIZE + 5):
        seated_match(me, rival, friend, COMPUTER, play=False)
    with django_assert_num_queries(7):
        after = listed(signed_in.get(URL, query))
    assert before and after == before


def test_the_header_links_to_my_games_once_signed_in(client, me):
    assert f'href="{URL}"' not in client.get(reverse("games:lobby")).content.decode()
    client.force_login(me)
    assert f'href="{URL}"' in client.get(reverse("games:lobby")).content.decode()


# A closed account among the players.


@pytest.fixture
def gone() -> User:
    """A player whose account a moderator closed (inactive): he has no profile any more."""
    return UserFactory(username="gone")


def test_a_closed_account_is_named_without_a_link_to_its_missing_profile(client, me, gone):
    """Inactive accounts have no profile (404): My games and the summary linked their names to
    it all the same, and the summary offered to report them."""
    match = seated_match(me, gone, COMPUTER, COMPUTER, play=False)
    User.objects.filter(pk=gone.pk).update(is_active=False)
    profile = reverse("games:profile", args=["gone"])
    assert client.get(profile).status_code == 404
    client.force_login(me)

    for page in (URL, reverse("games:match_summary", args=[match.pk])):
        html = client.get(page).content.decode()
        assert "<bdi>gone</bdi>" in html, page
        assert f'href="{profile}"' not in html, page
        assert reverse("moderation:report", args=["gone"]) not in html, page


def test_an_active_co_player_keeps_the_link_to_his_profile(client, me):
    friend = UserFactory(username="friend")
    match = seated_match(me, friend, COMPUTER, COMPUTER, play=False)
    client.force_login(me)
    profile = reverse("games:profile", args=["friend"])
    for page in (URL, reverse("games:match_summary", args=[match.pk])):
        assert f'href="{profile}"' in client.get(page).content.decode(), page
