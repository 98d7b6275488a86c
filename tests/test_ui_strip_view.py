import pygame

from companion.outputs.lights.pixels import SimulatedStrip, contiguous_segments
from companion.appliance.strip_view import StripView


def test_the_strip_is_drawn_only_when_its_frame_changes():
    pygame.display.init()
    try:
        surface = pygame.Surface((400, 60))
        strip = SimulatedStrip(8, brightness=1.0)
        view = StripView(strip, contiguous_segments(2, 4), pygame.Rect(0, 30, 400, 30),
                         [(255, 0, 0), (0, 0, 255)])
        strip.show([(0, 0, 255)] * 4 + [(0, 0, 0)] * 4)
        assert view.draw(surface) == pygame.Rect(0, 30, 400, 30)
        assert view.draw(surface) is None                   # same frame: nothing drawn
        # the first LED of seat 1 is lit blue where its dot is drawn
        assert surface.get_at((12 + (400 - 36) // 2 // 8, 43))[:3] == (0, 0, 255)
        strip.show([(0, 0, 0)] * 8)
        assert view.draw(surface) is not None and view.draws == 2
    finally:
        pygame.display.quit()
