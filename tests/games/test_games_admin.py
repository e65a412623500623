"""Every games model has a working admin; game history is read-only there."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from accounts.roles import MODERATORS_GROUP
from games.models import (
    CardPlay,
    Hand,
    Match,
    MatchConnection,
    MatchEvent,
    MatchSeat,
    Seat,
    Table,
    Trick,
)
from games.play.presence import connection_open
from tests.games.factories import (
    MatchFactory,
    SeatFactory,
    TableFactory,
    UserFactory,
    match_play,
)

pytestmark = pytest.mark.django_db

MODELS = [Table, Seat, Match, MatchSeat, Hand, Trick, CardPlay, MatchEvent, MatchConnection]


@pytest.fixture
def history():
    table = TableFactory()
    SeatFactory(table=table, index=0)
    SeatFactory(table=table, index=1, user=None, computer_level="hard")
    match = MatchFactory(seed=3, table=table)
    match_play(match, rng_seed=3, until=lambda s: len(s.hand.tricks) == 1)
    connection_open(match_id=match.pk, seat=0, user=None, channel_name="test.admin")
    return match


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_loads(admin_client, history, model):
    url = reverse(f"admin:games_{model._meta.model_name}_changelist")
    assert admin_client.get(url).status_code == 200
    assert admin_client.get(url, {"q": "1"}).status_code == 200


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_change_page_loads(admin_client, history, model):
    obj = model.objects.order_by("pk").first()
    url = reverse(f"admin:games_{model._meta.model_name}_change", args=[obj.pk])
    assert admin_client.get(url).status_code == 200


def test_match_page_shows_its_hands_read_only(admin_client, history):
    url = reverse("admin:games_match_change", args=[history.pk])
    page = admin_client.get(url).content.decode()
    assert "player0" in page
    assert reverse("admin:games_hand_change", args=[history.hands.first().pk]) in page
    assert admin_client.post(url, {}).status_code == 403


def test_history_cannot_be_added_by_hand(admin_client):
    for model in (Match, MatchSeat, Hand, Trick, CardPlay):
        url = reverse(f"admin:games_{model._meta.model_name}_add")
        assert admin_client.get(url).status_code == 403


def test_table_can_be_added(admin_client):
    url = reverse("admin:games_table_add")
    assert admin_client.get(url).status_code == 200


def test_the_deal_of_a_hand_in_play_is_hidden_from_staff_too_R8_3(admin_client, history):
    hand = history.hands.get()
    url = reverse("admin:games_hand_change", args=[hand.pk])
    page = admin_client.get(url).content.decode()
    assert hand.deck not in page
    assert "cards dealt" not in page.lower()
    # Once the match is over, the deal is history and shown.
    Match.objects.filter(pk=history.pk).update(status=Match.Status.FINISHED)
    page = admin_client.get(url).content.decode()
    assert hand.deck in page


@pytest.fixture
def moderator_client(client):
    """A moderator who is not a superuser: staff in the moderators group (accounts.roles)."""
    moderator = UserFactory(username="mod1", is_staff=True)
    moderator.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    client.force_login(moderator)
    return client


@pytest.mark.parametrize("who", ["admin_client", "moderator_client"])
def test_the_seed_of_a_match_in_play_is_hidden_from_staff_too_R8_3(request, history, who):
    # The match's seed gives every hand's deck (R6.4): the deal in play and the next ones.
    client = request.getfixturevalue(who)
    Match.objects.filter(pk=history.pk).update(seed=987654321)
    url = reverse("admin:games_match_change", args=[history.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "987654321" not in page.content.decode()
    Match.objects.filter(pk=history.pk).update(status=Match.Status.FINISHED)
    assert "987654321" in client.get(url).content.decode()


@pytest.mark.parametrize("who", ["admin_client", "moderator_client"])
@pytest.mark.parametrize(
    ("model", "query"),
    [
        (Hand, {"deck__startswith": "9C"}),
        (Hand, {"seed__gte": "1"}),
        (Hand, {"discards__contains": "9C"}),
        (Hand, {"keep_first": "[]"}),
        (Match, {"seed__gte": "1"}),
        (Match, {"seed": "3"}),
        (Trick, {"hand__deck__startswith": "9C"}),
        (MatchSeat, {"match__seed__gte": "1"}),
        (CardPlay, {"hand__seed__lt": "5"}),
    ],
)
def test_no_list_page_filters_on_hidden_cards_R8_3(request, history, who, model, query):
    # The count of rows would say yes or no: the deal, card by card, in a hundred requests.
    client = request.getfixturevalue(who)
    url = reverse(f"admin:games_{model._meta.model_name}_changelist")
    assert client.get(url).status_code == 200
    response = client.get(url, {"match": history.pk, **query} if model is Hand else query)
    assert response.status_code == 400
