"""Settings -> Update on the touchscreen (issue 41): where the program is installed as
releases, a button asks the update unit (the same request a paired phone makes); an update
that went back is said on the screen, once."""
from __future__ import annotations

import functools
import json
import os
from types import SimpleNamespace

from ui_touch import has_widget, make_app, touch

from companion.appliance import updates
from companion.appliance.service import Service
from companion.outputs.screen import text


def test_settings_update_asks_the_update_unit(tmp_path):
    text.reset("en")
    _, app = make_app()
    app.open("settings")
    assert not has_widget(app, "set.update")          # not installed as releases: no button
    app.request_update = functools.partial(updates.request, str(tmp_path), who="touchscreen")
    app.screen.changed()
    touch(app, "set.update")
    asked = json.loads((tmp_path / "update-requested").read_text())
    assert asked["by"] == "touchscreen"
    assert any(t.startswith("Update asked for") for t in app.screen.toasts)
    app.request_update = functools.partial(updates.request, str(tmp_path / "gone"))
    touch(app, "set.update")
    assert any(t.startswith("The update could not be asked for") for t in app.screen.toasts)


def test_an_update_that_went_back_is_said_on_the_screen_once(tmp_path):
    text.reset("en")
    layout = updates.Layout(str(tmp_path / "opt"))
    os.makedirs(layout.release("1.0-a"))
    layout.switch("current", "1.0-a")
    updates.write_atomic(layout.status, json.dumps({
        "state": "rolled_back", "at": "2026-06-01T20:00:00Z", "running": "1.0-a",
        "failed_release": "2.0-b", "why": "no READY within 180 s"}))
    state = tmp_path / "state"
    state.mkdir()
    service = SimpleNamespace(update_prefix=layout.prefix,
                              cfg={"journal": {"path": str(state / "journal.db")}})
    _, app = make_app()
    service._update_request = functools.partial(Service._update_request, service)
    Service._wire_updates(service, app)
    assert app.request_update is not None
    assert ("The update to 2.0-b did not start. The table went back to 1.0-a. Details: "
            "coffee-companion doctor.") in app.screen.toasts
    _, again = make_app()                              # the next start: said already
    Service._wire_updates(service, again)
    assert app.request_update() is None
    assert json.loads((state / "update-requested").read_text())["by"] == "touchscreen"
    assert not any("did not start" in t for t in again.screen.toasts)
