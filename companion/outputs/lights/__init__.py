"""The table's lights: what each seat's LEDs show, and the thread that shows it.

* ``patterns`` -- a pure function from (game, light context, time) to the
  colours of every seat segment, plus when the picture next changes.
* ``controller`` -- the table-loop subscriber that keeps the light context
  (pending draws, flashes, scanner status, turn timer) and drives a
  ``companion.outputs.lights.pixels.PixelStrip`` from its own thread, writing only
  when the picture changes.

May import: core, words, appliance.config; never another output.
"""
