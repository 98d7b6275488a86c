"""The touchscreen: a pygame front end for the table loop.

Read in this order:

- ``app.py``      the App: owns the window, the only thread that touches pygame;
                  turns loop updates into redraws and touches into ``TouchAction``.
- ``screens/base.py``  what a screen is (layout, draw, handle, on_update).
- ``widgets.py``  the drawing kit: text that always fits its box, buttons, cards,
                  the OPEN/CLOSED sign, ingredient icons.
- ``layout.py``   rectangles computed from the window size (no fixed pixels).
- ``theme.py``    colours and type sizes.
- ``text.py``     the visible words (``t(key, **params)``), translated via ``i18n``.

Nothing here changes the game: a screen asks the App to post an action, the
table loop applies it, and the App redraws from the update that comes back.

May import: core, words, review, appliance.config; never another output.
"""
import os as _os

_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")   # no banner on the terminal
