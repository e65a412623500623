"""accounts.restrictions: the questions the games app asks of a player, answered by moderation."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.utils import translation

from accounts import restrictions
from accounts.tokens import bearer_credentials
from moderation.hooks import SanctionRestrictions
from moderation.models import Sanction
from tests.accounts.players import make_player, sanction_in_force


def test_moderation_registers_its_answers_when_the_site_starts() -> None:
    assert isinstance(restrictions._source, SanctionRestrictions)


@pytest.mark.django_db
def test_a_restriction_tells_its_kind_and_why_in_the_active_language() -> None:
    roya = make_player("roya")
    sanction_in_force(roya, Sanction.Kind.MUTE, reason="insults")
    mute = restrictions.muted(user=roya)
    assert mute is not None and mute.kind == Sanction.Kind.MUTE
    with translation.override("en"):
        assert mute.message().startswith("You are muted in the chat until ")
        assert mute.message().endswith(": insults")
    assert restrictions.blocked(user=roya) is None
    assert restrictions.play_banned(user=roya.pk) is None


@pytest.mark.django_db
def test_without_a_registered_source_nobody_is_restricted(monkeypatch) -> None:
    roya = make_player("roya")
    sanction_in_force(roya, Sanction.Kind.BAN, reason="cheating")
    assert restrictions.blocked(user=roya) is not None
    monkeypatch.setattr(restrictions, "_source", None)
    assert restrictions.blocked(user=roya) is None
    assert restrictions.muted(user=roya) is None
    assert restrictions.play_banned(user=roya) is None
    request = RequestFactory().post("/accounts/login/")
    assert restrictions.sign_in_refusal(request=request, user=roya) is None


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer hokm_abc", "hokm_abc"),
        ("bearer   hokm_abc  ", "hokm_abc"),
        ("BEARER hokm_abc", "hokm_abc"),
        ("Bearer", ""),  # present, and invalid
        ("Bearer ", ""),
        ("Basic dXNlcjpwYXNz", None),
        ("", None),
        ("hokm_abc", None),
    ],
)
def test_one_parser_reads_the_bearer_header_for_the_api_and_the_sockets(
    header: str, token: str | None
) -> None:
    assert bearer_credentials(header) == token
