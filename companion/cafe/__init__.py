"""The café hub: ``coffee-companion cafe``.

``hub`` listens to every table of a venue on the MQTT broker, ``store`` keeps
tables and results in the hub's own database (SQLAlchemy Core: SQLite by
default, PostgreSQL for a bigger venue, the same code), ``leaderboard`` turns
results into a month's standings, and ``web`` serves the floor page and the
leaderboard, live.
"""
