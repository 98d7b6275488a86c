"""The pure rules of Coffee Rush's bookkeeping: (table, action) -> new table + what happened.

May import: nothing of ours (pure: no I/O, clock or randomness).
"""
from .actions import Action, parse_action, parse_line, to_line
from .engine import Accepted, Outcome, apply, upgrade_refusal
from .rejections import Rejection
from .scoring import ranking, score
from .state import Card, Game, Player, Table
from .turn import is_stalled

__all__ = ["Action", "Accepted", "Outcome", "Rejection", "Table", "Game", "Player", "Card",
           "apply", "upgrade_refusal", "parse_action", "parse_line", "to_line", "ranking",
           "score", "is_stalled"]
