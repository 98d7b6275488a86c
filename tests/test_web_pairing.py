"""Pairing: the code is entered once for a token; wrong codes lock only their own source;
tokens are kept hashed, survive a restart, are listed with a name and can be forgotten."""
import os

from companion.outputs.web.pairing import BUSY, LOCKED, OK, WRONG, Pairing, phone_name


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_right_code_gives_a_token_and_the_token_authorizes():
    p = Pairing(code="482913")
    assert p.shown() == "482 913"
    verdict, token = p.pair("482 913", "10.0.0.5", "Ana's phone")    # spaces as shown are fine
    assert verdict == OK and token and len(token) >= 40 and "482913" not in token
    assert p.authorize(token) == OK
    assert p.pair("482914", "10.0.0.5") == (WRONG, None)
    assert p.pair("", "10.0.0.5") == (WRONG, None)
    assert p.authorize("482913") == WRONG              # the code itself is no token
    assert p.authorize(None) == WRONG and p.authorize("") == WRONG
    assert [ph.name for ph in p.phones()] == ["Ana's phone"]


def test_wrong_codes_lock_that_source_only_for_the_window():
    clock = Clock()
    p = Pairing(clock=clock, code="111111", max_failures=3, window=60)
    for _ in range(3):
        assert p.pair("000000", "guesser") == (WRONG, None)
    assert p.pair("111111", "guesser") == (LOCKED, None)      # even the right code waits
    assert p.pair("111111", "owner")[0] == OK
    clock.now += 61
    assert p.pair("111111", "guesser")[0] == OK


def test_a_flood_from_many_sources_never_refuses_a_paired_phone_nor_a_fresh_owner():
    clock = Clock()
    p = Pairing(clock=clock, code="111111", max_failures=5, max_failures_all=30)
    _, token = p.pair("111111", "owner-phone", "Staff")
    for i in range(200):                                     # 200 addresses x 5 wrong codes
        for _ in range(5):
            assert p.pair("000000", f"10.0.{i // 250}.{i % 250}")[0] in (WRONG, LOCKED)
    assert p.authorize(token) == OK                          # the paired phone works on
    assert p.pair("111111", "owner-tablet")[0] == OK          # a fresh address may pair
    assert p.pair("111111", "10.0.0.7") == (LOCKED, None)   # one that guessed waits
    # the guessers got their first tries, then waited: far fewer than 1000 were counted
    assert len(p._all_failures) < 300


def test_renewing_the_code_stops_new_pairings_with_the_old_one():
    p = Pairing(code="111111")
    _, token = p.pair("111111", "a")
    heard = []
    p.listeners.append(heard.append)
    new = p.renew()
    assert new != "111111" and len(new) == 6 and new.isdigit() and heard == [new]
    assert p.pair("111111", "b") == (WRONG, None)
    assert p.pair(new, "b")[0] == OK
    assert p.authorize(token) == OK                          # paired phones stay paired


def test_forgetting_a_phone_revokes_its_token_at_once():
    p = Pairing(code="111111")
    _, ana = p.pair("111111", "a", "Ana")
    _, ben = p.pair("111111", "b", "Ben")
    assert p.forget(p.phone(ana).id)
    assert p.authorize(ana) == WRONG and p.authorize(ben) == OK
    assert [ph.name for ph in p.phones()] == ["Ben"]
    assert not p.forget("nothing")


def test_actions_are_rate_limited_per_phone():
    clock = Clock()
    p = Pairing(clock=clock, code="111111", max_actions=2, window=10)
    _, a = p.pair("111111", "x")
    _, b = p.pair("111111", "x")
    assert [p.authorize(a) for _ in range(3)] == [OK, OK, BUSY]
    assert p.authorize(b) == OK
    clock.now += 11
    assert p.authorize(a) == OK


def test_tokens_are_kept_hashed_and_survive_a_restart(tmp_path):
    store = tmp_path / "paired-phones.json"
    p = Pairing(code="111111", store=str(store))
    _, token = p.pair("111111", "a", "Ana")
    text = store.read_text("utf-8")
    assert token not in text and "111111" not in text and "Ana" in text
    assert oct(os.stat(store).st_mode & 0o777) == "0o600"
    again = Pairing(store=str(store))                        # a restart, with a new code
    assert again.authorize(token) == OK and again.phones()[0].name == "Ana"
    again.forget(again.phones()[0].id)
    assert Pairing(store=str(store)).authorize(token) == WRONG
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".paired-phones-")]


def test_a_damaged_or_unwritable_store_only_means_pairing_again(tmp_path, caplog):
    store = tmp_path / "paired-phones.json"
    store.write_text("{ not json", "utf-8")
    p = Pairing(code="111111", store=str(store))
    assert p.phones() == [] and "phones must pair again" in caplog.text
    readonly = tmp_path / "ro"
    readonly.mkdir()
    p = Pairing(code="111111", store=str(readonly / "phones.json"))
    os.chmod(readonly, 0o500)
    try:
        verdict, token = p.pair("111111", "a")
        assert verdict == OK and p.authorize(token) == OK     # paired until a restart
    finally:
        os.chmod(readonly, 0o700)
    if os.geteuid() != 0:                                    # root writes anyway
        assert "could not be saved" in caplog.text


def test_phone_names_come_from_the_phone_or_its_browser():
    assert phone_name("  Ana's\nphone  ", "") == "Ana's phone"
    assert phone_name("x" * 99, "") == "x" * 40
    assert phone_name(None, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)") == "iPhone"
    assert phone_name(None, "Mozilla/5.0 (Linux; Android 14; Pixel 8)") == "Android"
    assert phone_name(3, "curl/8.1") == "curl"
    assert phone_name("", "") == "Phone"
