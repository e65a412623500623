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

import pytest  # noqa: E402
from django.core.cache import cache  # noqa: E402


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
    (games/bot_pool.py); tests of the pool opt in with ``settings.HOKM_BOT_PROCESSES``."""
    settings.HOKM_BOT_PROCESSES = 0


_TESTS = Path(__file__).resolve().parent
_BROWSER_TESTS = _TESTS / "browser"
#: Tests that use no database, channel layer, server or browser: the rules engine, the computer
#: players and the record files. `make test` runs them in a second pytest-xdist worker beside
#: all the others, which stay together in one worker, in order (``pytest_itemcollected``).
_STANDALONE = (_TESTS / "engine", _TESTS / "bots", _TESTS / "records")


def pytest_itemcollected(item: pytest.Item) -> None:
    """Every test but the standalone ones joins the ``server`` group: under ``--dist loadgroup``
    one worker runs them all, one after another, as a run without xdist does. Two workers would
    each make a test database whose match ids repeat the other's, while the Redis channel layer
    and the spawned servers are shared: events of one worker's match 1 would reach the other's
    sockets. The standalone tests, a third of the suite's time, run beside them."""
    path = Path(item.path)
    if not any(folder in path.parents for folder in _STANDALONE):
        item.add_marker(pytest.mark.xdist_group("server"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last, after every async test: sync Playwright keeps an event loop running
    in this process from its first test on (STACK-NOTES.md). ``trylast`` so this comes after
    pytest-django's own reordering; the sort is stable, so the order within each group stays."""
    items.sort(key=lambda item: _BROWSER_TESTS in Path(item.path).parents)


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
    """What a process keeps of matches in memory (the sockets' shared loads, games/loads.py; the
    positions by version, games/selectors.py) is keyed by match id, which a later test's database
    may give to another match: each test starts with none."""
    from games.loads import local_matches, recent_loads
    from games.selectors import positions

    def forget() -> None:
        recent_loads.clear()
        positions.clear()
        local_matches.clear()

    forget()
    yield
    forget()


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
