"""The settings of the browser tests' live server (``live_server_url`` in conftest.py): the site's
own, less two costs that no browser test looks at.

- Passwords are hashed with MD5, as in the test process and every other test
  (tests/conftest.py): the real hashers are slow on purpose, and every browser test signs people
  in, each time a whole hash in the server and another in the test process.
- Templates are compiled once, as in production (DEBUG off): with DEBUG on, the server reads and
  compiles every template again for each table it renders, which it does on every move for every
  open page. The templates do not change while the tests run.
"""

from hokm_site.settings import *  # noqa: F403
from hokm_site.settings import TEMPLATES, _template_loaders

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

TEMPLATES[0]["OPTIONS"]["loaders"] = [("django.template.loaders.cached.Loader", _template_loaders)]
