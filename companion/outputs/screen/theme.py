"""Colours and sizes of the touchscreen.

Sizes are design pixels at 800x480 (the Raspberry Pi 7" panel); ``layout.Metrics.px``
scales them to the screen, so the layout reads the same at 1280x800.
"""
from __future__ import annotations

from companion.core import seat_colours

# The seat colours are defined once, in companion.core.seat_colours; these names stay for the
# screens that read them from the theme.
seat_rgb = seat_colours.screen_rgb


BACKGROUND = (28, 24, 22)          # espresso dark: high contrast for light text
PANEL = (48, 42, 38)
PANEL_DIM = (40, 35, 32)
PANEL_LINE = (78, 70, 64)
TEXT = (250, 246, 240)
TEXT_DIM = (196, 186, 176)
TEXT_DARK = (24, 20, 18)
CARD = (252, 246, 232)             # order card paper
CARD_EDGE = (150, 132, 112)
CARD_UNKNOWN = (222, 212, 196)
URGENT = (230, 70, 40)             # position 4: the order about to be missed
SPECIALTY = (250, 200, 40)         # the yellow ribbon
OPEN_GREEN = (46, 160, 90)
CLOSED_RED = (200, 44, 44)
WARNING = (244, 166, 35)
DANGER = (206, 52, 52)
OK = (70, 190, 110)
BUTTON = (86, 76, 68)
BUTTON_PRESSED = (130, 116, 104)
BUTTON_DISABLED = (60, 54, 50)
PRIMARY = (244, 166, 35)
TOAST = (252, 246, 232)

WHITE = (255, 255, 255)            # a pressed face's highlight, the QR code's paper
BLACK = (0, 0, 0)                  # shadows, veils, the QR code's modules
UNKNOWN_INGREDIENT = (128, 128, 128)

# Icons: the cookie, the rush token, an upgrade tile, a cake card, a light strip
COOKIE = (200, 140, 70)
COOKIE_EDGE = (120, 74, 34)
COOKIE_CHIP = (80, 46, 24)
RUSH_TOKEN = (250, 200, 40)
RUSH_TOKEN_EDGE = (150, 100, 10)
RUSH_TOKEN_BOLT = (110, 60, 0)
UPGRADE_ICON = (150, 110, 220)
CAKE_PINK = (226, 110, 160)        # icing; also the Cake Time chips and the lights' cue
CAKE_SPONGE = (246, 214, 150)
CAKE_CHERRY = (200, 30, 50)
CAKE_PLATE = (250, 250, 245)
CAKE_CARD_FACE = (255, 236, 244)
STRIP_BACKGROUND = (18, 16, 14)    # the simulated light strip (appliance/strip_view.py)
STRIP_LED_RIM = (40, 38, 36)

# Ingredient icon colours and the letter drawn inside (readable without colour vision).
INGREDIENTS = {
    "coffee": ((92, 58, 36), "Co"),
    "milk": ((245, 245, 240), "Mi"),
    "steam": ((170, 190, 205), "St"),
    "ice": ((140, 215, 240), "Ic"),
    "caramel": ((214, 140, 50), "Ca"),
    "chocolate": ((70, 40, 28), "Ch"),
    "tea": ((96, 168, 70), "Te"),
    "water": ((50, 120, 220), "Wa"),
    "fruit": ((220, 60, 110), "Fr"),
}

MIN_TARGET = 48          # smallest touch target, px (at any screen size)

# How long the table view's toasts stay up, s
TOAST_SHOP_CLOSED_S = 6.0            # why the shop closed
TOAST_GARBLED_S = 8.0                # noise on a device's line
TOAST_UNTIL_RESUMED_S = 24 * 3600    # the journal is busy: until it is free again

def readable_on(color: tuple) -> tuple:
    """Dark or light text, whichever reads better on ``color``."""
    r, g, b = color[:3]
    return TEXT_DARK if (0.299 * r + 0.587 * g + 0.114 * b) > 150 else TEXT


def mix(a: tuple, b: tuple, t: float) -> tuple:
    return tuple(round(x + (y - x) * t) for x, y in zip(a[:3], b[:3], strict=True))


# --- the setup wizard (sizes in design px for ``Metrics.px``, at 800x480) -----------------
WINTER_BLUE = (46, 120, 200)         # the Winter box's chip, "Main board chaos!"
UPGRADE_PURPLE = (120, 86, 190)      # an upgrade tile (and the table's upgrade buttons)
UPGRADE_PURPLE_TEXT = (190, 170, 240)   # upgrade names as words on the dark ground
SPEND_BROWN = (150, 104, 50)         # the table's "spend tokens" button
WINTER_SQUARE = (200, 225, 245)      # the icy tint of a Winter board square
SNOWFLAKE = (40, 110, 200)           # a snowflake square's mark
WIZARD_STEP_COUNT_W = 90             # "Step 3 of 9"
WIZARD_SIDE_GAP = 14                 # between a step's list and its board or chips
WIZARD_HEADING_H = 34                # a heading or status line above or below chips
WIZARD_HINT_H = 52                   # a two-line hint
WIZARD_HINT3_H = 66                  # a three-line hint (the Junior variant's, of small type)
WIZARD_NOTE_H = 40                   # a hint under the colours
WIZARD_ROW_PAD = 10                  # a row of chips: a touch target and this much
WIZARD_TOOLS_PAD = 6                 # the names' keyboard and clear buttons
WIZARD_TAB_PAD = 4                   # the upgrade modes
WIZARD_SWITCH_PAD = 16               # the Ristretto switch
WIZARD_SWITCH_HINT_H = 56
WIZARD_INFO_H = 36
WIZARD_TILE_MAX_H = 80               # the original game's four tiles
WIZARD_BOARD_CHIP_PAD = 8            # printed / chaos / seed
WIZARD_COUNT_INSET = (20, 30)        # the player count tiles' margin (x, y)
WIZARD_COUNT_GAP = 18
WIZARD_COUNT_DIGIT = 96              # "2", "3", "4"
WIZARD_COUNT_UNIT_H = 36
WIZARD_CHIP_EDGE = 4                 # inside a selected chip's outline
WIZARD_DEAL_LINE_H = 30              # a note under the deal
WIZARD_CAKE_DEAL_LINE_H = 26         # ... with Cake Time's longer notes
WIZARD_MEEPLE_HINT_LINE_H = 22       # a line of the meeples' hint (small type)
WIZARD_NOTE_MORE_H = 22              # a deal note's second line

# --- the table view (sizes in design px for ``Metrics.px``, at 800x480; table_layout.py) --
TABLE_HEADER_PAD_X = 6               # inside the top bar
TABLE_HEADER_PAD_Y = 3
TABLE_SIGN_PAD = 12                  # the OPEN/CLOSED board around its word
TABLE_INFO_PAD = 8                   # turn and deck, beside their words
TABLE_MESSAGE_MIN_W = 170            # a message's room beside the sign (else the device
                                     # icons stand one over the other to make it)
TABLE_DETAIL_MIN = 10                # the final round's second line, smallest type
TABLE_ACTIVE_PAD = 8                 # inside the active player's panel ...
TABLE_ACTIVE_PAD_MIN = 6             # ... in screen px at least
TABLE_ACTIVE_BORDER = 5              # its seat-colour border (4 screen px at least)
TABLE_ACTIVE_BANNER_H = 58           # whose turn
TABLE_ACTIVE_STATS_H = 44            # likes, dislikes, tokens ... (40 screen px at least)
TABLE_ACTIVE_STATS_MIN = 40
TABLE_ACTIVE_HINT_H = 44             # "tap a card when an order is done": two lines of
                                     # the small type (the scan prompt is long)
TABLE_ACTIVE_ROW_GAP = 5
TABLE_BANNER_PAD_X = 6               # inside the name banner
TABLE_BANNER_PAD_Y = 4
TABLE_BANNER_GAP = 4                 # between token, name and score
TABLE_FOOTER_LABEL_PAD = 6           # END TURN's words from its sides
TABLE_FOOTER_WORD_PAD = 3            # a small footer button's word from its sides
TABLE_FOOTER_ICON_H = 34             # a small footer button's picture (6 mm: 31 px and more)
TABLE_SCORE_PAD = 4                  # a score's box beside its words
TABLE_OTHER_PAD_X = 6                # inside a compact panel
TABLE_OTHER_PAD_Y = 4
TABLE_OTHER_BORDER = 3               # (2 screen px at least)
TABLE_STRIPE_W = 8                   # the seat-colour stripe (6 screen px at least)
TABLE_STRIPE_MIN = 6
TABLE_OTHER_STRIPE_GAP = 6
TABLE_OTHER_NAME_MIN = 30            # the name line: 30 % of the panel within these
TABLE_OTHER_NAME_MAX = 40
TABLE_OTHER_STATS_MIN = 22           # the counts: 25 % of the panel within these
TABLE_OTHER_STATS_MAX = 30
TABLE_OTHER_ROW_GAP = 3
TABLE_OTHER_SLOT_GAP = 4
TABLE_OTHER_NAME_MIN_TYPE = 14       # a compact panel's name, smallest type
TABLE_OTHER_SCORE_MIN_TYPE = 18
TABLE_STAT_GAP = 4                   # between the counts
TABLE_BANNER_TEXT_PAD = 12
TOAST_NOTHING_S = 2.0               # "Nothing to do here": brief
TABLE_FINAL_SWAP_S = 3.0            # "Final round" and "Chloe plays last" take turns
TABLE_DRAW_PAD = 6                   # the draw prompt's words in the hint line
TABLE_DRAW_BADGE_INSET = 2           # "+2" inside the positions it covers
TABLE_DRAW_BADGE_H = 38              # a side panel's name line while its seat draws
TABLE_NOGAME_BOX = (560, 260)        # "no game yet" and its buttons
TABLE_NOGAME_BUTTON_W = 300
TABLE_NOGAME_BUTTON_PAD = 8
DIALOG_UPGRADE_W = 600               # pick an upgrade: the box grows by a row of two
DIALOG_UPGRADE_BASE_H = 150
DIALOG_UPGRADE_ROW_H = 70
DIALOG_UPGRADE_TITLE_H = 56
DIALOG_UPGRADE_CANCEL_W = 220
DIALOG_SPEND_BOX = (560, 334)        # count the tokens to spend
DIALOG_SPEND_TITLE_H = 60
DIALOG_SPEND_HINT_H = 64             # what waits for a later turn: three lines of small type
DIALOG_SPEND_STEPPER = (260, 64)
DIALOG_MESSAGE_BOX = (600, 280)      # a question with two answers
DIALOG_MESSAGE_TITLE_H = 50
DIALOG_PAD = 14                      # inside a dialog (a message box: 16)
DIALOG_MESSAGE_PAD = 16
CAKE_QUESTION_H = 92                 # "cake on the deck's back?" (a target and 40 at least)
CAKE_QUESTION_EXTRA = 40
CAKE_QUESTION_PAD = (8, 3)
CAKE_QUESTION_LINE_H = 28
CAKE_QUESTION_WORDS_H = 44           # its words over the chips: two lines of small type
CAKE_QUESTION_BESIDE_H = 64          # ... beside them: three lines of small type
CAKE_QUESTION_ROW_GAP = 3
CAKE_QUESTION_ICON_GAP = 6
CAKE_CHIP_PAD = 4                    # a "+ name" chip's label from its sides
CAKE_BREAK_TIME_PAD = 4
CAKE_BREAK_TIME_MIN_TYPE = 10

# --- the end screen and fix mode (design px) -----------------------------------------------
END_TIE_LINE_H = 28                  # a tie-break note under the ranking
END_CORRECTED_LINE_H = 26            # "counts were corrected by hand"
END_BANNER_PAD = 10                  # the title and the winner banner
END_BIG_BUTTON_W = 170               # wider buttons take the big type
END_ROW_PAD = (8, 4)                 # inside a ranking row
END_POINTS_W = 150
END_NAME_MIN_TYPE = 18
END_QR_CAPTION_H = 24
END_QR_BUTTON_W = 130                # "BG Stats": its code on a page of its own
FIX_TITLE_TRIM = 8                   # the title bar is this much lower than a bar
FIX_HEADS_H = 44                     # the column heads: two lines of small type
FIX_STEPPER_MAX_H = 64
FIX_LABEL_PAD = 4                    # a seat's name and the deck's label
FIX_LABEL_MIN_TYPE = 14
# toasts (screens/base.py)
TOAST_W = 480
TOAST_H = 92
TOAST_WHOLE_W, TOAST_WHOLE_H = 620, 300    # a message shown whole (its headline tapped)
TOAST_FINGER_GAP = 24                # above or below the finger that was refused
END_ROW_BORDER = (4, 2)              # a ranking row's outline: the winner's, the others'
# the story of the game (screens/story.py, story_chart.py; design px)
STORY_CHART_SHARE = 0.5              # of the width, beside the turning points
STORY_CHART_TEXT = 22                # the chart's numbers: rounds and points
STORY_CHART_LINE = 5                 # a seat's line
STORY_CHART_MARKER = 20              # a seat's shape at each round
STORY_CHART_FLAG = 30                # a turning point's numbered flag
STORY_BACK_W = 230                   # "◀ Ranking"
STORY_LEGEND_H = 54                  # seats: shape, name, points
STORY_POINT_BADGE = 40               # a turning point's number
STORY_POINT_ROUND_H = 26             # "Round 3" above its sentence
STORY_POINT_PAD = 6
# enroll (design px)
ENROLL_DRINK_ROW_H = 58
ENROLL_RECIPE_ROW_H = 64
ENROLL_CLEAR_W = 130
# the start-up fault page (design px)
FAULT_BAND_EXTRA = 16                # the title band is a bar and this much
FAULT_PAD = (16, 10)                 # around the page's body
FAULT_TITLE_PAD = (16, 6)
FAULT_HEAD_H = 30                    # "What to do"
FAULT_DETAILS_H = 84
FAULT_DETAILS_PAD = 8
# settings (design px)
SETTINGS_DONE_W = 170                # the Done button; the pairing code's New
SETTINGS_GAME_W = 170                # "End this game", "New game" (while a game runs)
SETTINGS_LABEL_H = 22                # a label above its control
SETTINGS_VOICE_W = 204
SETTINGS_STEPPER_MAX = 64
SETTINGS_METER_PAD = 8
SETTINGS_VALUE_W = 90
