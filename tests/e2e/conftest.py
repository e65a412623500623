"""A real server for the end-to-end tests of programs playing over the network."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.live_server import live_server, run_database_url


# Module scope: the server stops when the module that uses it is done, before the next module
# starts servers of its own. Two servers on one test database with the in-memory channel layer
# would each run a worker whose events the other's sockets never hear (the Redis layer has no
# such limit, as in production), and an idle server's worker would still take their steps.
@pytest.fixture(scope="module")
def live_server_url(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:
    """The base URL of a daphne process serving the whole site on the test database; its output
    stays in pytest's temporary directory (``live-server*/daphne.log``) to read after a failure."""
    with django_db_blocker.unblock():
        database_url = run_database_url()
    log_path = tmp_path_factory.mktemp("live-server") / "daphne.log"
    env = {"HOKM_BOT_DELAY_SECONDS": "0.05", "HOKM_NEXT_HAND_DELAY_SECONDS": "0.5"}
    with live_server(database_url=database_url, log_path=log_path, env=env) as url:
        yield url
