"""The parsed language files kept beside the byte code (issue 19's cold start): used only
while they are the file's, a stale or broken one is parsed again, never trusted."""
import shutil
import sys

import pytest

from companion.words import i18n


@pytest.fixture
def locales(tmp_path, monkeypatch):
    folder = tmp_path / "locales"
    shutil.copytree(i18n.LOCALES, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(i18n, "LOCALES", str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    i18n.catalog.cache_clear()
    yield folder
    i18n.catalog.cache_clear()


def fresh(lang: str = "en") -> dict[str, str]:
    i18n.catalog.cache_clear()
    return i18n.catalog(lang)


def test_the_parsed_file_is_kept_and_read_back(locales):
    parsed = fresh()
    kept = list((locales / "__pycache__").glob("en.*.marshal"))
    assert len(kept) == 1
    assert fresh() == parsed


def test_a_changed_language_file_is_parsed_again(locales):
    fresh()
    en = locales / "en.toml"
    en.write_text(en.read_text(encoding="utf-8") + '\n[cache_check]\nword = "fresh"\n',
                  encoding="utf-8")
    assert fresh()["cache_check.word"] == "fresh"


def test_a_broken_kept_file_is_ignored(locales):
    parsed = fresh()
    for kept in (locales / "__pycache__").glob("en.*.marshal"):
        kept.write_bytes(b"\x00broken")
    assert fresh() == parsed


def test_nothing_is_kept_when_byte_code_is_not_written(locales, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    fresh()
    assert not (locales / "__pycache__").exists()
