"""Routes of the moderation pages: reports, a player's own sanctions and appeals, the queue,
a player's results by opponent and the rating flags."""

from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("players/<str:username>/report/", views.report_player, name="report"),
    path("report/", views.report_in_match, name="report_in_match"),
    path("account/sanctions/", views.my_sanctions, name="my_sanctions"),
    path("account/rename/", views.rename, name="rename"),
    path(
        "account/sanctions/<int:sanction_id>/appeal/",
        views.appeal_sanction,
        name="appeal_sanction",
    ),
    path("account/blocked/appeal/", views.appeal_blocked, name="appeal_blocked"),
    path("moderation/", views.queue, name="moderation_queue"),
    path("moderation/log/", views.log, name="moderation_log"),
    path("moderation/reports/<int:report_id>/", views.report_detail, name="moderation_report"),
    path(
        "moderation/reports/<int:report_id>/<slug:action>/",
        views.report_action,
        name="moderation_report_action",
    ),
    path(
        "moderation/appeals/<int:appeal_id>/decide/",
        views.appeal_decide,
        name="moderation_appeal_decide",
    ),
    path("moderation/players/<str:username>/", views.player_page, name="moderation_player"),
    # Before the player's actions, whose slug would take it.
    path(
        "moderation/players/<str:username>/opponents/",
        views.player_opponents,
        name="moderation_player_opponents",
    ),
    path(
        "moderation/players/<str:username>/<slug:action>/",
        views.player_action,
        name="moderation_player_action",
    ),
    path(
        "moderation/flags/<int:flag_id>/close/",
        views.rating_flag_close,
        name="moderation_flag_close",
    ),
]
