"""Finished games in a real journal, with names that need escaping (BG Stats, web tests)."""
import json

from companion.core.journal import Journal
from companion.core.session import Session

# 2026-11-23 15:00:00 UTC, and the game takes 37 minutes
START = 1795446000.0
NAMES = ["José Ñúñez", 'Zoë "Z" & Co', "김민준"]


def finished_game(path, names=NAMES, start=START, minutes=37) -> str:
    """A 3-player original game that ends (five dislikes, then the final turns) and
    is corrected to a clear ranking: names[2] wins, names[0] second, names[1] third."""
    now = [start]
    with Journal(str(path), clock=lambda: now[0]) as journal:
        s = Session(journal)
        a, b, c = names
        for line in [
            {"do": "setup", "edition": "original", "players": names, "start": b},
            {"do": "correct", "player": a, "dislikes": 5},
            {"do": "end_turn"}, {"do": "end_turn"}, {"do": "end_turn"},
        ]:
            assert not hasattr(s.apply_line(json.dumps(line, ensure_ascii=False)), "code")
        now[0] = start + minutes * 60
        for line in [
            {"do": "correct", "player": a, "likes": 6, "dislikes": 1},
            {"do": "correct", "player": b, "likes": 2},
            {"do": "correct", "player": c, "likes": 7, "cookies": 1},
        ]:
            assert not hasattr(s.apply_line(json.dumps(line, ensure_ascii=False)), "code")
        assert s.table.game.game_over
    return str(path)
