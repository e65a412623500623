"""Shared test configuration.

Hypothesis profiles: "dev" keeps local runs quick, "ci" (chosen when the CI variable is set, as
.ci/run does) searches harder. HYPOTHESIS_PROFILE picks one explicitly. Deadlines are off in both
because timing on shared CI machines varies too much to be a useful failure signal.
"""

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("ci", max_examples=300, deadline=None, print_blob=True)
default_profile = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or default_profile)


from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

import pytest  # noqa: E402
from django.core.cache import cache  # noqa: E402

if TYPE_CHECKING:
    from accounts.models import User


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """allauth counts rate limits (failed logins, sign-ups per address) in the cache, and every
    test client comes from 127.0.0.1: counts from one test must not lock out the next."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _language_reset() -> Iterator[None]:
    """Each test starts in the default language: a request to a Persian page activates Persian
    for the thread, and it would otherwise stay active in the tests that follow."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _channel_layer_per_test() -> Iterator[None]:
    """A new channel layer for each test, as each async test has its own event loop.

    channels_redis keeps asyncio locks on the layer object; one still held when a test's loop
    closes (its backup-queue cleaner task had not finished) is bound to that dead loop, and the
    next test's first receive fails with "bound to a different event loop".
    """
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """The real hasher is slow on purpose; tests hash passwords all the time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_background_autoplay(settings):
    """Computer players and the next deal run in a background thread in the real server; tests
    opt in to them explicitly (``settings.HOKM_AUTOPLAY = "inline"``) so nothing moves behind a
    test's back."""
    settings.HOKM_AUTOPLAY = "off"


@pytest.fixture(autouse=True)
def _bot_decisions_in_process(settings):
    """Computer players decide in the test's own thread, not a pool of processes
    (games/play/bot_pool.py); tests of the pool opt in with ``settings.HOKM_BOT_PROCESSES``."""
    settings.HOKM_BOT_PROCESSES = 0


_TESTS = Path(__file__).resolve().parent
_BROWSER_TESTS = _TESTS / "browser"
#: Tests that use no database, channel layer, server or browser: the rules engine (the record
#: files of tests/records and ``hokm_check`` among it) and the computer players. `make test` spreads
#: them over its two pytest-xdist workers, beside the two groups below (``pytest_itemcollected``).
_STANDALONE = (_TESTS / "engine", _TESTS / "bots")
#: Tests that start servers, browsers or services of their own: the group ``server``. The rest
#: of the tests that use the database (the sockets' tests in-process among them) are the group
#: ``site``; the two take about as long.
_SERVERS = (_TESTS / "browser", _TESTS / "e2e", _TESTS / "faults")


def pytest_itemcollected(item: pytest.Item) -> None:
    """Each test but the standalone ones joins the group ``server`` or ``site``: under ``--dist
    loadgroup`` one worker runs a group's tests, one after another and in order, and the two
    groups can run side by side. Each worker has a test database of its own (pytest-django's
    ``_gw0`` and ``_gw1``) and a Redis database of its own for the channel layer
    (``pytest_configure``), so that a worker's events never reach the other's sockets, although
    their match ids repeat."""
    path = Path(item.path)
    if any(folder in path.parents for folder in _STANDALONE):
        return
    group = "server" if any(folder in path.parents for folder in _SERVERS) else "site"
    item.add_marker(pytest.mark.xdist_group(group))


def redis_url_for_worker(redis_url: str, worker: int) -> str:
    """``redis_url`` with its database number moved up by ``worker``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(redis_url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{base + worker}"))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker's channel layer uses a Redis database of its own, and so
    do the servers its tests start (they read ``REDIS_URL``): the core layer's keys live in one
    database, and the pub/sub layer's channel names carry its number
    (``hokm_site.environment.pubsub_prefix``), as Redis publishes across databases."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    redis_url = os.environ.get("REDIS_URL")
    if not (worker.startswith("gw") and redis_url):
        return
    os.environ["HOKM_TESTS_REDIS_URL"] = redis_url  # the run's own, for the test of this
    from django.conf import settings as django_settings

    from hokm_site.environment import channel_layers_config

    os.environ["REDIS_URL"] = redis_url_for_worker(redis_url, int(worker[2:]))
    django_settings.CHANNEL_LAYERS = channel_layers_config(
        os.environ["REDIS_URL"], os.environ.get("REDIS_CHANNEL_LAYER") or "pubsub"
    )


#: The browser modules whose tests take longest (a whole hand or match played by clicks, many pages
#: read), slowest first: they start the browser tests, and the short ones (layouts, a page or two
#: each) end the run. The two workers take tests one by one from the front of the queue
#: (``make test``), so the last tests to start decide how long one worker waits for the other;
#: in collection order the last ones were whole matches. A module not named here keeps its place
#: after these.
_SLOW_BROWSER_MODULES = (
    "test_court_piece_browser.py",
    "test_being_there.py",
    "test_match_page.py",
    "test_play_against_computer.py",
    "test_seek_browser.py",
    "test_languages_browser.py",
    "test_themes_browser.py",
    "test_csp.py",
    "test_moderation.py",
    "test_keyboard_play.py",
)


def _run_order(item: pytest.Item) -> tuple[int, int]:
    path = Path(item.path)
    if _BROWSER_TESTS not in path.parents:
        return (0, 0)
    if path.name in _SLOW_BROWSER_MODULES:
        return (1, _SLOW_BROWSER_MODULES.index(path.name))
    return (1, len(_SLOW_BROWSER_MODULES))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last, after every async test: sync Playwright keeps an event loop running
    in this process from its first test on (STACK-NOTES.md); among them the slowest modules come
    first (``_SLOW_BROWSER_MODULES``). ``trylast`` so this comes after pytest-django's own
    reordering; the sort is stable, so the order within each group and module stays."""
    items.sort(key=_run_order)


@pytest.fixture(scope="session", autouse=True)
def _no_stray_database_sessions(django_db_setup, django_db_blocker) -> Iterator[None]:
    """Before the test database is dropped, end the sessions the run left on it: live servers
    that have just exited, and the worker threads of async tests. PostgreSQL refuses to drop a
    database that another session still uses."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(autouse=True)
def _no_shared_loads_between_tests() -> Iterator[None]:
    """What a process keeps of matches in memory (the sockets' shared loads, games/play/loads.py;
    the positions by version, games/play/selectors.py) is keyed by match id, which a later test's
    database may give to another match: each test starts with none."""
    from games.play.loads import local_matches, recent_loads
    from games.play.selectors import positions

    def forget() -> None:
        recent_loads.clear()
        positions.clear()
        local_matches.clear()

    forget()
    yield
    forget()


@pytest.fixture
def player(db: None) -> "User":
    """Roya, a player who completed her sign-up: for the accounts and the moderation tests."""
    from tests.accounts.players import make_player

    return make_player()


@pytest.fixture
def renamed(db: None, monkeypatch: pytest.MonkeyPatch) -> "User":
    """Rude_name, whom a moderator has just ordered to pick a new username (a forced rename);
    the sanction is not enforced on sockets, as no socket is open."""
    from django.contrib.auth.models import Group

    from accounts.roles import MODERATORS_GROUP
    from moderation.models import Sanction
    from moderation.services import sanction_apply
    from tests.games.factories import UserFactory

    monkeypatch.setattr("moderation.enforcement.sanction_enforce", lambda sanction: None)
    moderator = UserFactory(username="mod1", is_staff=True)
    moderator.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    player = UserFactory(username="rude_name")
    sanction_apply(
        moderator=moderator, user=player, kind=Sanction.Kind.RENAME, reason="offensive name"
    )
    return player


@pytest.fixture
def cached_templates(settings) -> None:
    """Compile the templates once, as production does (DEBUG off), for tests that render
    thousands of tables: with DEBUG on, Django reads and compiles every template again."""
    import copy

    templates = copy.deepcopy(settings.TEMPLATES)
    options = templates[0]["OPTIONS"]
    if options["loaders"][0][0] != "django.template.loaders.cached.Loader":
        options["loaders"] = [("django.template.loaders.cached.Loader", options["loaders"])]
    settings.TEMPLATES = templates


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    """Under CI (.ci/run starts PostgreSQL and Redis and installs Chromium), a test skipped for
    want of a service fails instead: the few skips of the suite say that a service is missing
    here, and a run that skipped them would pass with those tests never run."""
    report = yield
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where every service must be there: {report.longrepr}"
    return report
