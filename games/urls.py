"""Pages of the games app: the lobby and tables, matches, history and replays, players' pages."""

from django.urls import path

from games.history import replay_views
from games.history import views as history_views
from games.lobby import start_views, views
from games.play import api
from games.play import views as match_views
from games.ratings import views as ratings_views

app_name = "games"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("tables/new/", views.table_create_view, name="table_create"),
    path("tables/<int:table_id>/", views.table_detail, name="table_detail"),
    path(
        "tables/<int:table_id>/seats/<int:seat>/join/",
        views.table_join,
        name="table_join",
    ),
    path("tables/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("tables/<int:table_id>/start/", views.table_start_view, name="table_start"),
    path("tables/<int:table_id>/shuffle/", views.table_seed, name="table_seed"),
    path("invite/<str:code>/", views.table_invite, name="table_invite"),
    path("play/computer/", views.play_computer, name="play_computer"),
    # A quick start picked in the lobby, ready to begin: a signed-out visitor comes back to it.
    path("play/computer/start/", start_views.play_computer_start, name="play_computer_start"),
    path("match/<int:match_id>/", match_views.match_page, name="match"),
    path("match/<int:match_id>/rematch/", match_views.match_rematch_view, name="match_rematch"),
    path("players/<str:username>/", history_views.profile, name="profile"),
    path("players/<str:username>/games/", history_views.player_games, name="player_games"),
    path("leaderboard/", ratings_views.leaderboards, name="leaderboard"),
    path(
        "leaderboard/<str:variant>/",
        ratings_views.leaderboard_variant,
        name="leaderboard_variant",
    ),
    path("history/", history_views.my_games, name="my_games"),
    path("match/<int:match_id>/summary/", history_views.match_summary, name="match_summary"),
    path("match/<int:match_id>/record/", history_views.match_record_download, name="match_record"),
    path("match/<int:match_id>/replay/", replay_views.replay, name="replay"),
    path("records/import/", replay_views.record_import, name="record_import"),
    path("api/matches/", api.match_start_against_computer, name="api_match_start"),
    # Programs write the address by hand: without its slash, APPEND_SLASH would answer a POST
    # with a redirect that drops the body (a RuntimeError under DEBUG).
    path("api/matches", api.match_start_against_computer),
    path("api/seal/", api.seal, name="api_seal"),
    path("api/seal", api.seal),
    path("api/players/<str:username>/", api.player_public, name="api_player"),
    # Answered as it is written, like the address above, rather than by a redirect to the slash.
    path("api/players/<str:username>", api.player_public),
]
