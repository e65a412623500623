"""The Content-Security-Policy header (hokm_site/csp.py), and the templates and scripts it relies
on: no inline script, no event handler attribute, no eval. That pages run under it in a browser
is tests/browser/test_csp.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from hokm_site.csp import HEADER, ContentSecurityPolicyMiddleware, content_security_policy
from tests.accounts.players import client_for
from tests.games.factories import UserFactory

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = sorted((ROOT / "templates").rglob("*.html")) + sorted(
    (ROOT / "accounts").rglob("templates/**/*.html")
)
SCRIPTS = sorted((ROOT / "static").rglob("*.js")) + sorted((ROOT / "accounts").rglob("*.js"))


def directives(policy: str) -> dict[str, list[str]]:
    parts = (part.split() for part in policy.split(";"))
    return {words[0]: words[1:] for words in parts if words}


@pytest.mark.django_db
def test_pages_carry_a_strict_policy():
    client = client_for(UserFactory())
    for url in (reverse("home"), reverse("games:lobby"), reverse("games:table_create")):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = directives(response[HEADER])
        assert policy["default-src"] == ["'self'"]
        assert policy["script-src"] == ["'self'"]
        assert policy["style-src-elem"] == ["'self'"]
        assert policy["style-src-attr"] == ["'unsafe-inline'"]
        assert policy["img-src"] == ["'self'", "data:"]
        assert policy["object-src"] == ["'none'"]
        assert policy["frame-ancestors"] == ["'none'"]
        assert policy["form-action"] == ["'self'"]
        assert policy["base-uri"] == ["'none'"]
        assert policy["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert HEADER in client.get("/no-such-page/")  # error pages too


def test_sockets_go_to_the_pages_own_host_only():
    assert "connect-src 'self' ws://hokm.example:8000 wss://hokm.example:8000" in (
        content_security_policy("hokm.example:8000")
    )
    # A policy cannot name an IPv6 address, and a refused host is named nowhere.
    assert content_security_policy("[::1]:8000").endswith("connect-src 'self'")
    assert content_security_policy(None).endswith("connect-src 'self'")


def test_a_host_django_refuses_gets_the_policy_without_it(settings):
    settings.ALLOWED_HOSTS = ["hokm.example"]
    middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse(status=400))
    request = RequestFactory().get("/", headers={"host": "evil.example"})
    assert middleware(request)[HEADER].endswith("connect-src 'self'")


def test_a_policy_set_by_a_view_is_kept_and_debug_error_pages_go_without(settings):
    def own_policy(request):
        response = HttpResponse()
        response[HEADER] = "default-src 'none'"
        return response

    request = RequestFactory().get("/")
    assert ContentSecurityPolicyMiddleware(own_policy)(request)[HEADER] == "default-src 'none'"
    not_found = ContentSecurityPolicyMiddleware(lambda request: HttpResponse(status=404))
    assert HEADER in not_found(request)
    settings.DEBUG = True  # Django's own 404 and 500 pages, with inline scripts and styles
    assert HEADER not in not_found(request)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_templates_hold_no_inline_script_or_handler(path):
    text = path.read_text()
    for tag in re.findall(r"<script\b[^>]*>", text):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", text), "an event handler attribute"
    assert "javascript:" not in text
    assert "hx-on" not in text  # htmx would evaluate it


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_scripts_do_not_evaluate_strings(path):
    text = path.read_text()
    assert not re.search(r"\beval\s*\(|new Function\s*\(|setTimeout\s*\(\s*['\"`]", text)
    assert '.setAttribute("style"' not in text and "insertAdjacentHTML" not in text


def test_htmx_is_told_not_to_evaluate_or_insert_styles():
    base = (ROOT / "templates" / "base.html").read_text()
    (config,) = re.findall(r"<meta name=\"htmx-config\" content='(.*?)'>", base)
    assert json.loads(config) == {"allowEval": False, "includeIndicatorStyles": False}
