# The live-play WebSocket consumers will be routed here.
websocket_urlpatterns: list = []
