"""Pages of the games app: the lobby, tables and matches."""

app_name = "games"

urlpatterns: list = []
