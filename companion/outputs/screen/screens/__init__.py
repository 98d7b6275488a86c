"""The screens of the touchscreen. Each is a ``base.Screen`` the App shows:

- ``table_view.TableView``  the game in play (the App's home screen)
- ``end.EndScreen``         the ranking with each score's breakdown
- ``fix.FixScreen``         guarded correction of counts
- (UI-B) wizard, settings, keyboard and enroll screens; see ``app.SCREENS``.
"""
