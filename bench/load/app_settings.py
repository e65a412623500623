"""The site's own settings, with the channel layer that ``BENCH_LAYER`` names (``pubsub``, the
default and production's, or ``core``). The benchmark runs the application's daphne process and
its worker with ``DJANGO_SETTINGS_MODULE=bench.load.app_settings``; nothing else differs."""

import os

from bench.load.layers import layer_config
from hokm_site.settings import *  # noqa: F403

_redis_url = os.environ.get("REDIS_URL")
if not _redis_url:
    raise ImproperlyConfigured("the load benchmark runs the site on Redis: set REDIS_URL")  # noqa: F405
CHANNEL_LAYERS = {"default": layer_config(os.environ.get("BENCH_LAYER", "pubsub"), _redis_url)}
