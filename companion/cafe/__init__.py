"""The café hub, apart from any table: ``coffee-companion cafe``. hub (the venue's MQTT
messages into the store), store (SQLAlchemy Core: SQLite or PostgreSQL), leaderboard, web.
May import: words, appliance.config, core.rules, outputs.mqtt (the topics both ends speak),
outputs.web (its HTTP server and routes, which serve the hub's pages too).
"""
