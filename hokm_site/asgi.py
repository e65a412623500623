"""ASGI entry point: plain HTTP goes to Django, WebSocket connections to the Channels routes.

Run with ``daphne hokm_site.asgi:application``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hokm_site.settings")
# Set up Django (app registry, settings) before importing the routing: consumers import models,
# which fails if the registry is not ready yet. Hence the late imports below.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from django.conf import settings

from accounts.channels_auth import TokenAuthMiddleware
from games.routing import websocket_urlpatterns
from hokm_site.websocket_security import OriginOrTokenValidator

# Computer players, deals and turn clocks run in this process unless dedicated workers do them.
if settings.HOKM_AUTOPLAY == "thread":
    from games.play.autoplay import worker_thread_start

    worker_thread_start()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Browsers send cookies with cross-site WebSocket handshakes and CSRF protection does not
        # cover them, so only pages from ALLOWED_HOSTS may open a socket in a user's name;
        # programs sign in with a bearer token instead (docs/protocol.md).
        "websocket": OriginOrTokenValidator(
            AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))
        ),
    }
)

# Everything is loaded: keep the startup heap out of the garbage collector's full collections
# (hokm_site.startup).
from hokm_site.startup import heap_freeze

heap_freeze()
