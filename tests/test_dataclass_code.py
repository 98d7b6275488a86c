"""The records' generated code kept beside the byte code (issue 19's cold start): a record
made through the cache is the record dataclasses makes; kept code is read back instead of
compiled; a broken file is ignored; nothing is written when byte code is not."""
import dataclasses
import sys

import pytest

from companion import dataclass_code


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "__pycache__" / "dataclass_code.marshal"
    monkeypatch.setattr(dataclass_code, "PATH", str(path))
    fresh(monkeypatch)
    monkeypatch.setattr(dataclass_code, "_changed", False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return path


def order_record():
    @dataclasses.dataclass(frozen=True)
    class Order:
        seat: int
        drinks: tuple[str, ...] = ()
        tip: int = dataclasses.field(default=0, compare=False)
    return Order


def fresh(monkeypatch):
    monkeypatch.setattr(dataclass_code, "_index", {})
    monkeypatch.setattr(dataclass_code, "_new", {})
    monkeypatch.setattr(dataclass_code, "_fd", None)
    monkeypatch.setattr(dataclass_code, "_used", set())


def next_start(monkeypatch):
    """What a new process sees: only what was written."""
    fresh(monkeypatch)
    dataclass_code._load()


def texts_made(monkeypatch, make):
    """The texts dataclasses hands to exec while ``make()`` runs."""
    seen = []
    real = dataclass_code.compiled

    def spy(source):
        seen.append(source)
        return real(source)
    monkeypatch.setattr(dataclass_code, "compiled", spy)
    made = make()
    monkeypatch.setattr(dataclass_code, "compiled", real)
    return made, seen


def test_the_package_makes_every_record_through_the_cache():
    assert dataclasses.exec is dataclass_code.cached_exec  # type: ignore[attr-defined]


def test_a_record_made_from_kept_code_is_the_same_record(cache, monkeypatch):
    order_record()
    dataclass_code.keep()
    assert cache.exists()
    next_start(monkeypatch)

    def no_compiling(*args, **kwargs):
        raise AssertionError("kept code was compiled again")
    monkeypatch.setattr(dataclass_code, "compile", no_compiling, raising=False)
    Order = order_record()
    a, b = Order(1, ("latte",), tip=2), Order(1, ("latte",))
    assert a == b and hash(a) == hash(b)          # tip: not compared
    assert a != Order(2, ("latte",))
    assert repr(a).endswith(".Order(seat=1, drinks=('latte',), tip=2)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seat = 3                                # type: ignore[misc]
    assert Order.__match_args__ == ("seat", "drinks", "tip")
    match a:
        case Order(1, drinks):
            assert drinks == ("latte",)
        case _:
            pytest.fail("the record did not match by position")
    with pytest.raises(TypeError):
        Order()                                   # type: ignore[call-arg]


def test_a_new_record_is_compiled_and_kept_at_the_next_keep(cache, monkeypatch):
    order_record()
    dataclass_code.keep()
    before = cache.read_bytes()

    @dataclasses.dataclass
    class Cake:
        layers: int
    dataclass_code.keep()
    assert cache.read_bytes() != before
    next_start(monkeypatch)

    def cake():
        @dataclasses.dataclass
        class Cake:
            layers: int
        return Cake
    _, texts = texts_made(monkeypatch, cake)
    assert texts and all(dataclass_code.kept(t) for t in texts)
    _, texts = texts_made(monkeypatch, order_record)
    assert texts and all(dataclass_code.kept(t) for t in texts)   # the older one stays


def test_a_start_holds_the_index_not_the_codes(cache, monkeypatch):
    """Only the index is read at start; each code is read from the file when its record
    is made (the texts and codes are not held for the service's life)."""
    order_record()
    dataclass_code.keep()
    next_start(monkeypatch)
    assert dataclass_code._index and not dataclass_code._new
    assert all(isinstance(k, int) for k in dataclass_code._index)
    assert cache.stat().st_size > 5 * len(dataclass_code._index) * 16   # (codes are bigger)


def test_a_broken_kept_file_is_ignored(cache, monkeypatch):
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"\x00broken")
    next_start(monkeypatch)
    assert dataclass_code._index == {}
    Order = order_record()
    assert Order(1) == Order(1)


def test_nothing_is_kept_when_byte_code_is_not_written(cache, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    order_record()
    dataclass_code.keep()
    assert not cache.parent.exists()


def test_a_cut_short_kept_file_costs_only_the_compiling(cache, monkeypatch):
    order_record()
    dataclass_code.keep()
    cache.write_bytes(cache.read_bytes()[:-40])       # the last code cut short
    next_start(monkeypatch)
    Order = order_record()
    assert Order(1, ("latte",)) == Order(1, ("latte",))
    assert repr(Order(2)).endswith(".Order(seat=2, drinks=(), tip=0)")


def test_two_texts_under_one_key_each_get_their_own_code(cache, monkeypatch):
    """A key shared by two texts (length and CRC-32 alike) costs a compile, never the
    other record's code: the text read back is compared."""
    monkeypatch.setattr(dataclass_code, "_key", lambda text: 7)
    order_record()
    dataclass_code.keep()
    next_start(monkeypatch)

    @dataclasses.dataclass
    class Cake:
        layers: int
        flavour: str = "mocha"
    assert repr(Cake(2)).endswith("Cake(layers=2, flavour='mocha')")
    Order = order_record()
    assert repr(Order(1)).endswith(".Order(seat=1, drinks=(), tip=0)")
