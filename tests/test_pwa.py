"""The installable web app (hokm_site/pwa.py, docs/app.md): the manifest and its icons,
/favicon.ico, /sw.js and the service worker's rule that only static files are ever cached."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import reverse

pytestmark = pytest.mark.django_db

STATIC = Path(settings.BASE_DIR) / "static"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, the first after the signature."""
    assert data.startswith(PNG_SIGNATURE)
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def static_file(url: str) -> bytes:
    """The bytes of a file the page names by its static URL."""
    assert url.startswith(settings.STATIC_URL) or url.startswith("/" + settings.STATIC_URL)
    path = url.split(settings.STATIC_URL, 1)[1]
    found = finders.find(path)
    assert found, f"{url} is not a static file"
    return Path(str(found)).read_bytes()


def test_the_manifest_describes_an_installable_app(client):
    response = client.get(reverse("web_manifest"))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Hokm online"
    assert manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#") and manifest["background_color"].startswith("#")
    assert (manifest["lang"], manifest["dir"]) == ("en", "ltr")


def test_the_manifest_speaks_the_visitors_language(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"

    manifest = json.loads(client.get(reverse("web_manifest")).content)

    assert (manifest["lang"], manifest["dir"]) == ("fa", "rtl")
    assert manifest["name"] != "Hokm online"


def test_every_icon_of_the_manifest_exists_with_its_size_and_type(client):
    icons = json.loads(client.get(reverse("web_manifest")).content)["icons"]

    purposes = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any")} <= purposes
    assert {("192x192", "maskable"), ("512x512", "maskable")} <= purposes
    for icon in icons:
        data = static_file(icon["src"])
        if icon["type"] == "image/svg+xml":
            assert icon["sizes"] == "any"
            assert data.lstrip().startswith(b"<svg")
        else:
            assert icon["type"] == "image/png"
            width, height = png_size(data)
            assert f"{width}x{height}" == icon["sizes"]


def test_favicon_ico_is_an_icon_file_of_png_images(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    data = response.content
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1) and count >= 2
    sizes = []
    for entry in range(count):
        width, height, _, _, planes, bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * entry : 22 + 16 * entry]
        )
        image = data[offset : offset + length]
        assert len(image) == length
        assert png_size(image) == (width or 256, height or 256)
        sizes.append(width)
    assert {16, 32} <= set(sizes)


def test_every_page_links_the_icons_manifest_and_worker(client):
    html = client.get(reverse("home")).content.decode()

    assert f'<link rel="manifest" href="{reverse("web_manifest")}">' in html
    assert '<link rel="icon" href="/favicon.ico"' in html
    assert 'rel="apple-touch-icon"' in html
    assert '<meta name="theme-color"' in html
    assert f'data-service-worker="{reverse("service_worker")}"' in html
    touch = html.split('rel="apple-touch-icon" href="', 1)[1].split('"', 1)[0]
    assert png_size(static_file(touch)) == (180, 180)


def test_the_turn_icon_is_an_svg_of_the_site(client):
    assert (STATIC / "img" / "favicon-turn.svg").read_text().lstrip().startswith("<svg")


def test_the_service_worker_is_served_at_the_root_and_never_kept(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    assert response.content == (STATIC / "js" / "sw.js").read_bytes()


def test_the_app_files_are_read_only(client):
    for name in ("web_manifest", "service_worker", "favicon"):
        assert client.post(reverse(name)).status_code == 405


#: Runs static/js/sw.js in Node with the worker's globals faked, and says for each request
#: whether the worker answered it (respondWith) or left it to the network.
_ROUTING = """
const fs = require("fs");
const vm = require("vm");
const handlers = {};
const self = {
  location: new URL("https://hokm.example/sw.js"),
  addEventListener: (type, handler) => { handlers[type] = handler; },
  skipWaiting: () => {},
  clients: { claim: () => Promise.resolve() },
};
const caches = { open: () => new Promise(() => {}), keys: () => Promise.resolve([]) };
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"),
  { self, caches, URL, Promise, fetch: () => new Promise(() => {}) });
const answered = JSON.parse(process.argv[3]).map(([method, url, range]) => {
  let responded = false;
  handlers.fetch({
    request: { method, url, headers: { has: (name) => name === "range" && range } },
    respondWith: () => { responded = true; },
    waitUntil: () => {},
  });
  return responded;
});
console.log(JSON.stringify(answered));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js to run the worker")
def test_the_worker_answers_only_for_static_files_never_for_pages_or_game_data(tmp_path):
    requests = {
        ("GET", "https://hokm.example/static/js/match.js", False): True,
        ("GET", "https://hokm.example/static/js/match.3f2a9c0d1e4b.js", False): True,
        ("GET", "https://hokm.example/static/img/icons/icon-192.png?v=2", False): True,
        ("GET", "https://hokm.example/", False): False,
        ("GET", "https://hokm.example/match/12/", False): False,
        ("GET", "https://hokm.example/match/12/record/", False): False,
        ("GET", "https://hokm.example/api/v1/matches/12/", False): False,
        ("GET", "https://hokm.example/ws/match/12/", False): False,
        ("GET", "https://hokm.example/lobby/", False): False,
        ("GET", "https://hokm.example/sw.js", False): False,
        ("GET", "https://hokm.example/match/12/static/x.js", False): False,
        ("GET", "https://elsewhere.example/static/js/match.js", False): False,
        ("POST", "https://hokm.example/static/js/match.js", False): False,
        ("GET", "https://hokm.example/static/audio/x.ogg", True): False,
    }
    script = tmp_path / "routing.js"
    script.write_text(_ROUTING)
    result = subprocess.run(
        ["node", str(script), str(STATIC / "js" / "sw.js"), json.dumps(list(requests))],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )

    answered = json.loads(result.stdout)
    assert dict(zip(requests, answered, strict=True)) == requests
