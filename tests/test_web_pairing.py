"""The pairing code: right, wrong, rate-limited per client and for everyone, renewed."""
from companion.web.pairing import BUSY, LOCKED, OK, WRONG, Pairing


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_right_code_wrong_code_and_the_shown_form():
    p = Pairing(code="482913")
    assert p.shown() == "482 913"
    assert p.check("482 913", "phone") == OK          # spaces as shown are fine
    assert p.check("482914", "phone") == WRONG
    assert p.check("", "phone") == WRONG


def test_too_many_wrong_codes_lock_that_client_for_the_window():
    clock = Clock()
    p = Pairing(clock=clock, code="111111", max_failures=3, window=60)
    for _ in range(3):
        assert p.check("000000", "guesser") == WRONG
    assert p.check("111111", "guesser") == LOCKED      # even the right code waits
    assert p.check("111111", "other") == OK
    clock.now += 61
    assert p.check("111111", "guesser") == OK


def test_wrong_codes_from_many_clients_lock_everyone():
    p = Pairing(clock=Clock(), code="111111", max_failures=3, max_failures_all=5)
    for i in range(5):
        assert p.check("000000", f"client{i}") == WRONG
    assert p.check("111111", "fresh") == LOCKED


def test_renewing_revokes_the_old_code():
    p = Pairing(code="111111")
    heard = []
    p.listeners.append(heard.append)
    new = p.renew()
    assert new != "111111" and len(new) == 6 and new.isdigit() and heard == [new]
    assert p.check("111111", "phone") == WRONG
    assert p.check(new, "phone") == OK


def test_actions_are_rate_limited_per_client():
    clock = Clock()
    p = Pairing(clock=clock, code="111111", max_actions=2, window=10)
    assert [p.check("111111", "a") for _ in range(3)] == [OK, OK, BUSY]
    assert p.check("111111", "b") == OK
    clock.now += 11
    assert p.check("111111", "a") == OK
