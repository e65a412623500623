"""WebSocket routes."""

from django.urls import path

from games.consumers import MatchHtmlConsumer, MatchJsonConsumer

websocket_urlpatterns = [
    path("ws/match/<int:match_id>/", MatchHtmlConsumer.as_asgi()),
    path("ws/api/match/<int:match_id>/", MatchJsonConsumer.as_asgi()),
]

from games.lobby_consumers import LobbyConsumer, TableConsumer  # noqa: E402

websocket_urlpatterns += [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
]
