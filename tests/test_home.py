"""The front page explains Hokm, in English by default and right-to-left in Persian."""

import pytest
from django.test import Client
from django.urls import reverse


def test_home_explains_hokm_in_english(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'lang="en"' in html
    assert 'dir="ltr"' in html
    for text in ("Hokm online", "حکم", "Hakem", "Kot", "7 tricks", "hokm2-draw", "حاکم کت"):
        assert text in html, text


def test_home_in_persian_is_right_to_left(client: Client) -> None:
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="fa")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'lang="fa"' in html
    assert 'dir="rtl"' in html
    # From the compiled catalog in locale/fa: the page is translated, not just mirrored.
    assert "یک دور چگونه بازی می‌شود" in html


def test_home_loads_htmx_and_the_site_stylesheet(client: Client) -> None:
    html = client.get("/").content.decode()

    assert "/static/django_htmx/htmx-2.min.js" in html
    assert "/static/css/site.css" in html


@pytest.mark.django_db
def test_admin_link_is_shown_to_staff(admin_client: Client) -> None:
    html = admin_client.get("/").content.decode()

    assert f'href="{reverse("admin:index")}"' in html


@pytest.mark.django_db
def test_admin_link_is_hidden_from_visitors(client: Client) -> None:
    html = client.get("/").content.decode()

    assert f'href="{reverse("admin:index")}"' not in html
