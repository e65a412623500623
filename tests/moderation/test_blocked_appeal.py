"""A suspended or banned player appeals from the page that keeps him out.

He is signed out at once (moderation/middleware.py), so the sanctions page, where other players
appeal, was closed to him: the players most in need of an appeal had none. The blocked page now
carries the form, with the sanction's id signed; it is shown only after he proved the account is
his (his session, or his password at sign-in)."""

from __future__ import annotations

import re

import pytest
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from moderation.middleware import BLOCKED_APPEAL_SALT
from moderation.models import Appeal, Sanction
from moderation.services import appeal_decide
from moderation.views import BLOCKED_APPEAL_MAX_AGE
from tests.accounts.players import PASSWORD, make_player, sanction_in_force

pytestmark = pytest.mark.django_db

APPEAL_URL = reverse("moderation:appeal_blocked")


def ban(user: User, kind: str = Sanction.Kind.BAN) -> Sanction:
    """A ban (no end) or a suspension of three days, in force now."""
    minutes = 3 * 24 * 60 if kind == Sanction.Kind.SUSPEND else None
    return sanction_in_force(user, kind, minutes=minutes, reason="Cheating with a partner")


def blocked_page(client, user: User) -> str:
    """The page his sign-in gets him: the password is right, the account is kept out."""
    response = client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    assert response.status_code == 403
    return response.content.decode()


def token_in(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found, "the blocked page has no appeal form"
    return found.group(1)


@pytest.mark.parametrize("kind", [Sanction.Kind.BAN, Sanction.Kind.SUSPEND])
def test_a_kept_out_player_appeals_from_the_page_that_keeps_him_out(
    client, moderator, kind
) -> None:
    sina = make_player("sina")
    sanction = ban(sina, kind)
    html = blocked_page(client, sina)
    assert "Send the appeal" in html

    response = client.post(APPEAL_URL, {"token": token_in(html), "text": "It was my brother."})

    assert response.status_code == 200
    appeal = Appeal.objects.get(sanction=sanction)
    assert (appeal.text, appeal.status) == ("It was my brother.", Appeal.Status.OPEN)
    page = response.content.decode()
    assert "You appealed; a moderator will decide." in page
    assert 'name="token"' not in page  # one appeal a sanction: no form any more
    assert "_auth_user_id" not in client.session  # and he stays out
    # The next sign-in shows the appeal, and then its decision.
    assert "You appealed; a moderator will decide." in blocked_page(client, sina)
    appeal_decide(moderator=moderator, appeal=appeal, grant=False, decision="Seen in the logs.")
    refused = blocked_page(client, sina)
    assert "Your appeal was refused." in refused
    assert "Seen in the logs." in refused


def test_a_player_signed_out_by_a_new_ban_gets_the_form_too(client) -> None:
    roya = make_player("roya")
    client.force_login(roya)
    sanction = ban(roya)

    html = client.get(reverse("games:lobby")).content.decode()
    client.post(APPEAL_URL, {"token": token_in(html), "text": "Please look again."})

    assert Appeal.objects.filter(sanction=sanction).count() == 1


@pytest.mark.parametrize(
    "token",
    [
        "",
        "not-a-token",
        signing.dumps(1, salt="another.salt"),
        "tampered",
    ],
    ids=["missing", "garbage", "other-salt", "tampered"],
)
def test_a_forged_or_broken_token_is_refused_and_stores_nothing(client, token) -> None:
    sina = make_player("sina")
    sanction = ban(sina)
    if token == "tampered":
        good = signing.dumps(sanction.pk, salt=BLOCKED_APPEAL_SALT)
        token = good[:-2] + ("AA" if not good.endswith("AA") else "BB")

    response = client.post(APPEAL_URL, {"token": token, "text": "Let me in."})

    assert response.status_code == 400
    assert "This appeal form is out of date or was changed." in response.content.decode()
    assert not Appeal.objects.exists()


def test_an_old_form_is_refused(client, monkeypatch) -> None:
    sina = make_player("sina")
    ban(sina)
    token = token_in(blocked_page(client, sina))
    later = timezone.now().timestamp() + BLOCKED_APPEAL_MAX_AGE + 5
    monkeypatch.setattr(signing.time, "time", lambda: later)

    response = client.post(APPEAL_URL, {"token": token, "text": "Let me in."})

    assert response.status_code == 400
    assert not Appeal.objects.exists()


def test_an_empty_or_second_appeal_is_refused_with_the_reason(client) -> None:
    sina = make_player("sina")
    sanction = ban(sina)
    token = token_in(blocked_page(client, sina))

    empty = client.post(APPEAL_URL, {"token": token, "text": "   "})
    assert empty.status_code == 400
    assert "Write why the sanction should be lifted." in empty.content.decode()
    assert token_in(empty.content.decode())  # the form again, to try once more
    first = client.post(APPEAL_URL, {"token": token, "text": "First."})
    assert first.status_code == 200
    second = client.post(APPEAL_URL, {"token": token, "text": "Second."})
    assert second.status_code == 400
    assert "You have appealed this sanction already." in second.content.decode()
    assert list(Appeal.objects.values_list("sanction", "text")) == [(sanction.pk, "First.")]


def test_the_form_only_takes_posts(client) -> None:
    assert client.get(APPEAL_URL).status_code == 405
