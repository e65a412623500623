"""The site's template backend: Django's, whose HTML pages and fragments come out in the reader's
digits (lib.numerals). One place for every page, htmx fragment and socket fragment, because all of
them are rendered through it.

Only ``.html`` templates: a plain-text email carries links and codes that must stay as they are.
The admin's pages are left as Django writes them: moderators copy ids and names from them.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template import TemplateDoesNotExist
from django.template.backends.django import DjangoTemplates, reraise
from django.template.backends.django import Template as DjangoTemplate
from django.utils.safestring import SafeString, mark_safe

from lib.numerals import localize_html


class Templates(DjangoTemplates):
    def from_string(self, template_code: str) -> Template:
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name: str) -> Template:
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            reraise(exc, self)


class Template(DjangoTemplate):
    def render(
        self, context: dict[str, Any] | None = None, request: HttpRequest | None = None
    ) -> SafeString:
        html = super().render(context, request)
        name = getattr(self.template.origin, "template_name", None) or ""
        if not isinstance(name, str) or not name.endswith(".html") or name.startswith("admin/"):
            return mark_safe(html)  # as rendered: the parent's output is safe HTML
        return mark_safe(localize_html(html))
