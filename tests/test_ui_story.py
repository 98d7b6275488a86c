"""The story page behind the end screen (screens/story.py, review/story_chart.py): rendered
from a whole demo game in every language at 800x480, 1024x600 and 1280x800 off-screen,
saved under test-output/ui/; no text leaves its box or overlaps another, the chart has
every seat's line in its colour and shape, the turning points are the story's, and the
page opens from the end screen, goes back, and closes when an undo reopens the game."""
import os

os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pygame.mask  # noqa: E402  (not loaded by companion's `import pygame`)
import pytest  # noqa: E402

from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.review.story import story_of  # noqa: E402
from companion.review.story_words import point_text  # noqa: E402
from companion.outputs.screen import screenshots, widgets  # noqa: E402
from companion.outputs.screen.screens.end import EndScreen  # noqa: E402
from companion.outputs.screen.screens.story import StoryScreen  # noqa: E402
from companion.review.story import nice_ticks  # noqa: E402
from companion.review.story_chart import draw_shape  # noqa: E402
from test_ui_screens import OUT, check_targets, check_texts  # noqa: E402

SIZES = [(800, 480), (1024, 600), (1280, 800)]


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    from companion.outputs.screen import text
    text.set_language("en")


def finished_app(size, lang):
    _, app = screenshots.make_app(screenshots.sample_script(screenshots.FINISHED_SAMPLE),
                                  size, lang)
    assert isinstance(app.screen, EndScreen)
    return app


def draw(app):
    app.screen.invalidate()
    with widgets.record_text() as texts:
        app.screen.draw(app.surface)
    return texts


def widget(app, name):
    return next(w for w in app.screen.widgets() if w.name == name)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_story_page_renders_and_fits(size, lang):
    os.makedirs(OUT, exist_ok=True)
    app = finished_app(size, lang)
    where = f"end-finished-{lang}-{size[0]}x{size[1]}"
    check_texts(draw(app), where)
    assert screenshots.tap_widget(app, "end.story")
    assert isinstance(app.screen, StoryScreen)
    texts = draw(app)
    where = f"story-{lang}-{size[0]}x{size[1]}"
    check_texts(texts, where)
    check_targets(app, where)
    pygame.image.save(app.surface, os.path.join(OUT, f"{where}.png"))

    story = story_of(app.table)
    points = story.highlights(3)
    assert len(points) == 3
    drawn = {r.owner: r for r in texts}
    for i, p in enumerate(points, 1):
        r = drawn[f"story.text{i}"]
        assert r.wanted == point_text(lang, p)
        assert "…" not in r.text, f"{where}: turning point {i} was cut"
        # read from 1.5 m: not shrunk below 18 px on the 7" panel (22 px designed)
        assert r.size >= 18 * size[1] / 480 - 1, f"{where}: point {i} at {r.size} px"
    # the chart's own numbers: rounds 1..6 along the bottom, points on the left,
    # the flags 1-3; none overlaps another
    chart = [r for r in texts if r.owner == "story.chart"]
    words = [r.text for r in chart]
    assert {"1", "2", "3", "4", "5", "6", "0", "10"} <= set(words)
    for i, a in enumerate(chart):
        for b in chart[i + 1:]:
            assert not a.rect.colliderect(b.rect), f"{where}: {a.text} overlaps {b.text}"
    # every seat's key: its name and final points
    for seat, name in enumerate(story.players):
        assert drawn[f"story.key{seat}.name"].wanted == name
        assert drawn[f"story.key{seat}.points"].wanted == str(story.rounds[-1][seat])


def test_the_chart_draws_each_seat_in_its_colour():
    app = finished_app((800, 480), "en")
    screenshots.tap_widget(app, "end.story")
    draw(app)
    box = widget(app, "story.chart").rect
    chart = app.surface.subsurface(box)
    for colour in app.seat_colors[:4]:
        exact = pygame.mask.from_threshold(chart, tuple(colour), (1, 1, 1, 255)).count()
        # a line across six rounds and six shapes: hundreds of pixels of the colour
        assert exact > 300, f"{exact} pixels of the seat colour {colour}"


def test_seat_shapes_differ_without_colour():
    """The four seats' shapes, drawn in one colour, cover different pixels."""
    masks = []
    for shape in ("circle", "square", "triangle", "diamond"):
        s = pygame.Surface((40, 40))
        s.fill((0, 0, 0))
        draw_shape(s, shape, (20, 20), 24, (255, 255, 255), (255, 255, 255), 2)
        masks.append(pygame.mask.from_threshold(s, (255, 255, 255), (1, 1, 1, 255)))
    counts = [m.count() for m in masks]
    for i, a in enumerate(masks):
        for b in masks[i + 1:]:
            assert a.overlap_area(b, (0, 0)) < max(a.count(), b.count()), counts


def test_nice_ticks():
    assert nice_ticks(0, 10) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(-5, 4) == [-6, -4, -2, 0, 2, 4]
    assert nice_ticks(0, 0) == [0, 1]
    assert nice_ticks(0, 57)[-1] >= 57 and len(nice_ticks(0, 57)) <= 8


def test_back_to_the_ranking_and_closed_by_an_undo():
    app = finished_app((800, 480), "en")
    screenshots.tap_widget(app, "end.story")
    assert screenshots.tap_widget(app, "story.back")
    assert isinstance(app.screen, EndScreen)
    screenshots.tap_widget(app, "end.story")
    assert isinstance(app.screen, StoryScreen)
    screenshots.act(app, {"do": "undo"})            # the game is running again
    assert not app.table.game.game_over
    assert not any(isinstance(s, (StoryScreen, EndScreen)) for s in app.stack)


def test_a_game_over_before_any_round_says_so():
    """The shop closes and the game ends in the first round: no chart, a sentence."""
    lines = ['{"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]}',
             '{"do": "correct", "player": "Ana", "dislikes": 5}',
             '{"do": "end_turn"}', '{"do": "end_turn"}', '{"do": "end_turn"}']
    _, app = screenshots.make_app(lines, (800, 480), "ko")
    screenshots.tap_widget(app, "end.story")
    texts = draw(app)
    check_texts(texts, "story-one-round-ko")
    story = story_of(app.table)
    assert story.round_count == 1 and story.finished
    names = {w.name for w in app.screen.widgets()}
    assert "story.chart" in names and "story.point1" in names
    # and a setup alone (not over) has no story page to show
    _, app = screenshots.make_app(lines[:1], (800, 480), "en")
    screen = StoryScreen(app)
    screen.layout((800, 480))
    assert [w.name for w in screen.build() if w.name == "story.chart"] == []


@pytest.mark.parametrize("rounds", [1, 2, 10, 15, 24])
def test_a_long_or_short_game_keeps_its_numbers_apart(rounds):
    """The chart of any length: its numbers inside the chart and apart from each other,
    the last round always labelled; negative scores (Winter's dislikes) on the grid."""
    from companion.review.story import Story
    from companion.outputs.screen.screens.story import SCREEN_PEN, screen_look
    from companion.review.story_chart import paint_chart
    pygame.font.init()
    scores = tuple(tuple((r * (seat + 1) * 3) // 2 - 3 * seat for seat in range(4))
                   for r in range(rounds + 1))
    story = Story("winter", ("A", "B", "C", "D"), 0, scores, (), True)
    for size in SIZES:
        surface = pygame.Surface(size)
        box = pygame.Rect(6, 74, size[0] // 2, size[1] - 140)
        look = screen_look(text=22, line=5, marker=20, flag=30)
        with widgets.record_text() as texts:
            paint_chart(surface, box, story, [(200, 40, 40)] * 4, look, SCREEN_PEN,
                        [1, rounds, rounds])
        words = [r.text for r in texts]
        assert str(rounds) in words and "0" in words
        assert min(min(x) for x in scores) == -9 and any(w.startswith("-") for w in words)
        for i, a in enumerate(texts):
            assert box.contains(a.rect), f"{a.text} leaves the chart"
            for b in texts[i + 1:]:
                assert not a.rect.colliderect(b.rect), f"{rounds}: {a.text} / {b.text}"
