"""End-to-end tests in a real headless Chromium (Playwright's sync API, Debian's /usr/bin/chromium).

The site runs in a spawned daphne process on the test database, started as tests/e2e starts its
own, with computer players moving by themselves and emails written to files, under the site's
settings less two costs no test looks at (``server_settings.py``: MD5 password hashing, as in
this process, and templates compiled once). Tests commit their rows (``transaction=True``) so
that server sees them.

This server waits longer before dealing the next hand than the tests/e2e one (2 s, not 0.5 s):
the htmx page gets the newest state of the match, and a server that lags by more than that pause
sends the next deal instead of the end-of-hand table, so the banner a test looks for would never
reach the page. Events that come in a burst may be coalesced (docs/protocol.md).

``tests/conftest.py`` moves these tests to the end of the run: sync Playwright keeps an event loop
running in this process, which must not happen before the async tests (STACK-NOTES.md). For the
same reason Django's ORM, called here while that loop runs, needs ``DJANGO_ALLOW_ASYNC_UNSAFE``:
set for these tests only, and never passed to the server.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from games.models import Match, MatchConnection
from tests.live_server import live_server, run_database_url

#: What a failed browser test's report shows besides the assertion: the last frames each of its
#: pages received over its sockets, what the pages logged, and the end of the live server's log.
#: A rare failure in CI is then explained by its own report, with no rerun needed.
_PAGE_TRACES = pytest.StashKey[list]()
_SERVER_LOG: list[Path] = []
TRACE_FRAMES = 25
TRACE_LOG_LINES = 80

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"

#: Generous: the machines these run on are slow and shared; computer moves take ~0.05 s each.
TIMEOUT_MS = 30_000

# Run in every page before its own scripts. Counts the htmx sockets opened, and on request holds
# the table still once a hand-end banner has arrived, since the server deals the next hand soon
# after, maybe while the test is still looking (htmx drops a message whose wsBeforeMessage event
# is cancelled; the test reloads the page afterwards).
PAGE_PROBE = """
(() => {
  const probe = { wsOpen: 0, holdOnBanner: false, hold: false };
  window.__hokm = probe;
  document.addEventListener("htmx:wsOpen", () => { probe.wsOpen += 1; });
  document.addEventListener("htmx:wsBeforeMessage", (event) => {
    if (probe.hold) { event.preventDefault(); }
  });
  document.addEventListener("htmx:wsAfterMessage", () => {
    if (probe.holdOnBanner && document.querySelector("#table .banner")) { probe.hold = true; }
  });
})();
"""


@pytest.fixture(scope="session")
def live_server_email_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the live server writes the emails it sends, one file per message (EMAIL_FILE_PATH)."""
    return tmp_path_factory.mktemp("live-server-email")


# Session scope (pytest-playwright's base_url is session-scoped); the browser tests run last, after
# the end-to-end tests' server has stopped (tests/e2e/conftest.py says why that matters).
@pytest.fixture(scope="session")
def live_server_url(
    django_db_setup, django_db_blocker, live_server_email_dir: Path, tmp_path_factory
) -> Iterator[str]:
    """The base URL of a daphne process serving the whole site on the test database. Its output
    stays in pytest's temporary directory (``live-server*/daphne.log``) to read after a failure."""
    with django_db_blocker.unblock():
        database_url = run_database_url()
    log_path = tmp_path_factory.mktemp("live-server") / "daphne.log"
    _SERVER_LOG[:] = [log_path]
    env = {
        "HOKM_BOT_DELAY_SECONDS": "0.05",
        "HOKM_NEXT_HAND_DELAY_SECONDS": "2",
        "EMAIL_FILE_PATH": str(live_server_email_dir),
        "DJANGO_SETTINGS_MODULE": "tests.browser.server_settings",
    }
    with live_server(database_url=database_url, log_path=log_path, env=env) as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright's browser, launched from Debian's Chromium (never `playwright install`)."""
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "headless": True,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
        ],
    }


@pytest.fixture(scope="session", autouse=True)
def _orm_beside_playwright_loop() -> Iterator[None]:
    """The ORM is called while Playwright's event loop runs in this thread: allow it, in this
    process only (live_server_url removes the variable from the server's environment)."""
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    expect.set_options(timeout=TIMEOUT_MS)
    yield
    if before is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(autouse=True)
def _server_quiet_at_the_end() -> Iterator[None]:
    """After each browser test, its pages closed by then: stop the matches' automatic steps and
    wait until the server has handled every socket's close, so that the database flush which
    follows does not run beside the server's own transactions (on PostgreSQL, TRUNCATE and a
    worker's step can deadlock, and the next test then finds the last one's rows: a match
    against the computer started by "Play again" at the end of a test did so in CI)."""
    yield
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        Match.objects.filter(step_at__isnull=False).update(step_at=None)
        if not MatchConnection.objects.exists():
            time.sleep(0.3)  # a step that was being taken commits and sets its next one
            if not Match.objects.filter(step_at__isnull=False).exists():
                return
        time.sleep(0.1)


@pytest.fixture(scope="session")
def base_url(live_server_url: str) -> str:
    """Pages open relative to the live server (pytest-playwright passes this to every context)."""
    return live_server_url


@pytest.fixture
def open_page(
    new_context: Callable[..., BrowserContext], request: pytest.FixtureRequest
) -> Callable[..., Page]:
    """A new page in a browser context of its own (its own cookies: one person each)."""
    traces = request.node.stash.setdefault(_PAGE_TRACES, [])

    def open_(**context_args) -> Page:
        # The table's motion (static/js/table-fx.js) is off unless a test asks for it: Playwright
        # waits for a card to stand still before it clicks, and a card in flight would add its
        # flight to every click of the suite. tests/browser/test_table_fx.py turns it on.
        context_args.setdefault("reduced_motion", "reduce")
        context = new_context(**context_args)
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(PAGE_PROBE)
        page = context.new_page()
        trace: list[str] = []
        traces.append(trace)
        page.on("console", lambda message: trace.append(f"console {message.type}: {message.text}"))
        page.on(
            "websocket",
            lambda socket: (
                trace.append(f"socket opened {socket.url}"),
                socket.on("framesent", lambda data: trace.append(f"sent {str(data)[:400]}")),
                socket.on("framereceived", lambda data: trace.append(f"got {str(data)[:400]}")),
                socket.on("close", lambda _: trace.append("socket closed")),
            ),
        )
        return page

    return open_


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = yield
    if report.when == "call" and report.failed:
        for number, trace in enumerate(item.stash.get(_PAGE_TRACES, []), start=1):
            lines = [" ".join(line.split()) for line in trace[-TRACE_FRAMES:]]
            report.sections.append((f"page {number}: its last socket frames", "\n".join(lines)))
        if _SERVER_LOG and _SERVER_LOG[0].exists():
            tail = _SERVER_LOG[0].read_text(errors="replace").splitlines()[-TRACE_LOG_LINES:]
            report.sections.append(("live server log, last lines", "\n".join(tail)))
    return report


@pytest.fixture
def screenshot(request: pytest.FixtureRequest) -> Callable[[Page, str], Path]:
    """Save what a page shows now as tests/screenshots/<test>--<name>.png (the whole page, CSS
    animations run to their end so a banner fading in is seen as it settles)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Page, name: str) -> Path:
        path = SCREENSHOTS / f"{request.node.originalname}--{name}.png"
        page.screenshot(path=path, full_page=True, animations="disabled")
        return path

    return take
