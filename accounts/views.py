"""Account pages of our own: the settings page with the player's looks and sounds and his API
tokens, and the endpoint that stores looks and sounds (the public profile, which reads matches,
is ``games.history.views.profile``).

Sign-up, login, email confirmation and passwords are django-allauth's views (``/accounts/``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import DisplayNameForm, PreferencesForm, TokenCreateForm
from accounts.http import AuthenticatedHttpRequest
from accounts.models import ApiToken, Back, Face, Theme, User
from accounts.preferences import preferences_update
from accounts.selectors import api_tokens_active
from accounts.services import user_set_display_name
from accounts.tokens import token_create, token_revoke


def _render_settings(
    request: AuthenticatedHttpRequest, status: int = 200, **context: Any
) -> HttpResponse:
    user = request.user
    context.setdefault("display_name_form", DisplayNameForm(instance=user))
    context.setdefault("token_form", TokenCreateForm())
    context["tokens"] = api_tokens_active(user=user)
    context["looks"] = {"themes": Theme.choices, "faces": Face.choices, "backs": Back.choices}
    return render(request, "accounts/settings.html", context, status=status)


# never_cache on every settings response: one of them shows a token's secret.
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The user's own settings: display name (POST here) and personal API tokens."""
    if request.method == "POST":
        form = DisplayNameForm(request.POST, instance=User.objects.get(pk=request.user.pk))
        if not form.is_valid():
            return _render_settings(request, status=400, display_name_form=form)
        user_set_display_name(user=request.user, display_name=form.cleaned_data["display_name"])
        messages.success(request, _("Your display name is saved."))
        return redirect("accounts:settings")
    return _render_settings(request)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def token_create_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Make a token and show its secret on this one response; it is not stored anywhere.

    A GET goes to the tokens on the settings page: the answer to the POST leaves this URL in the
    address bar, and opening it again should not end on an empty 405 page.
    """
    if request.method != "POST":
        return redirect(reverse("accounts:settings") + "#tokens")
    form = TokenCreateForm(request.POST)
    if not form.is_valid():
        return _render_settings(request, status=400, token_form=form)
    try:
        token, raw = token_create(user=request.user, name=form.cleaned_data["name"])
    except ValidationError as error:
        form.add_error(None, error)
        return _render_settings(request, status=400, token_form=form)
    # Rendered, not redirected: a redirect would have to keep the secret somewhere to show it.
    return _render_settings(request, new_token=token, new_token_secret=raw)


@never_cache
@login_required
@require_POST
def token_revoke_view(request: AuthenticatedHttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(token_id=token_id, user=request.user)
    except ApiToken.DoesNotExist:
        raise Http404 from None
    # The name in its own <bdi> (escaped by format_html): a name in the other direction than the
    # page's would otherwise take the quotes and the full stop around it with it.
    name = format_html("<bdi>{}</bdi>", token.name)
    messages.success(request, mark_safe(_("The token “%(name)s” is revoked.") % {"name": name}))
    return redirect("accounts:settings")


def _asked_by_script(request: HttpRequest) -> bool:
    """A fetch or htmx request (answered 204), not a form the browser posted and shows the
    answer of (answered with a redirect). Browsers mark their own navigations
    ``Sec-Fetch-Mode: navigate``; static/js/prefs.js also says ``X-Requested-With``."""
    return (
        bool(getattr(request, "htmx", False))
        or "X-Requested-With" in request.headers
        or request.headers.get("Sec-Fetch-Mode", "navigate") != "navigate"
    )


@never_cache
@require_POST
def preferences_view(request: HttpRequest) -> HttpResponse:
    """Store any of the looks and sounds (``accounts.forms.PreferencesForm``), for a signed-in
    player on his account, for a visitor in his session. A bad value changes nothing: 400 with
    the reason."""
    form = PreferencesForm(request.POST)
    script = _asked_by_script(request)
    if not form.is_valid():
        reasons = [str(error) for errors in form.errors.values() for error in errors]
        if not script and request.user.is_authenticated:
            return _render_settings(request, status=400, preferences_form=form)  # type: ignore[arg-type]
        return HttpResponse(
            "\n".join(reasons), status=400, content_type="text/plain; charset=utf-8"
        )
    preferences_update(request=request, values=form.changes())
    if script:
        return HttpResponse(status=204)
    messages.success(request, _("Your looks and sounds are saved."))
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("accounts:settings") if request.user.is_authenticated else "/"
    return redirect(target)
