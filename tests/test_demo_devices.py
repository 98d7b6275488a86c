"""The demo is the service with simulated drivers: every seat press comes through
gpiozero mock pins and the service's Buttons, every card through a pty and the
service's ScannerReader (no input posted around them)."""
import io

from companion.appliance import demo
from companion.core import events as ev
from companion.core.loop import TableLoop


def test_the_terminal_demo_presses_mock_pins_and_scans_through_a_pty(monkeypatch):
    seen = []
    handle = TableLoop.handle

    def recording(self, event):
        seen.append(event)
        return handle(self, event)
    monkeypatch.setattr(TableLoop, "handle", recording)
    out = io.StringIO()
    assert demo.run("original", 3, seed=5, out=out) == 0
    assert "Final ranking:" in out.getvalue()
    seats = [e for e in seen if isinstance(e, (ev.SeatTap, ev.SeatHold))]
    scans = [e for e in seen if isinstance(e, ev.CardScanned)]
    assert seats and scans
    # a gesture the Buttons classified carries its press's stamp; the scanner's lines
    # are a QR module's (source "barcode") stamped with the table they were read at
    assert all(e.press is not None and e.press.seen is not None for e in seats)
    assert any(isinstance(e, ev.SeatTap) and e.count == 2 for e in seats)    # a double tap
    assert all(e.source == "barcode" and e.seen is not None for e in scans)
    statuses = {(e.device, e.status) for e in seen if isinstance(e, ev.DeviceStatus)}
    assert {("buttons", "ready"), ("scanner", "connected")} <= statuses

