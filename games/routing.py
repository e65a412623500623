"""WebSocket routes: a match's sockets (the page's and the JSON protocol's), the lobby's and a
table's before its match."""

from django.urls import path

from games.lobby.consumers import LobbyConsumer, TableConsumer
from games.play.consumers import MatchHtmlConsumer, MatchJsonConsumer

websocket_urlpatterns = [
    path("ws/match/<int:match_id>/", MatchHtmlConsumer.as_asgi()),
    path("ws/api/match/<int:match_id>/", MatchJsonConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
]
