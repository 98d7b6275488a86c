"""The card catalog: what a scanned tag means (drink, recipe, specialty).

Catalogs are TOML files a user edits, one ``[[card]]`` table per card::

    [[card]]
    tag = "04A1B2C3D4"          # what the scanner reads (NFC UID hex or QR text)
    drink = "My drink name"
    recipe = ["coffee", "milk"] # 2 to 4 of the edition's eight ingredients
    specialty = false           # yellow ribbon: a specialty-menu order
    edition = "original"        # or "winter"

The real deck's recipes are not published, so the companion ships an empty
user catalog and a clearly labelled example catalog (for tests and the demo).
Tags that no catalog knows are fine: the game tracks them as unknown cards.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import Any

from companion.appliance.config import TomlError, read_toml

from .rules.editions import EDITIONS

EXAMPLE = "example-cards.toml"


class CatalogError(Exception):
    """A catalog file that cannot be read; the message names the file and card."""


@dataclass(frozen=True)
class CardInfo:
    tag: str
    drink: str
    recipe: tuple[str, ...]
    specialty: bool
    edition: str


def _check(path: str, n: int, raw: dict[str, Any]) -> CardInfo:
    where = f"{path}: card {n}"
    unknown = set(raw) - {"tag", "drink", "recipe", "specialty", "edition"}
    if unknown:
        raise CatalogError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    tag, drink = raw.get("tag"), raw.get("drink", "")
    if not isinstance(tag, str) or not tag.strip():
        raise CatalogError(f"{where}: 'tag' must be a non-empty text")
    where = f"{path}: card {tag!r}"
    if not isinstance(drink, str):
        raise CatalogError(f"{where}: 'drink' must be a text")
    edition = raw.get("edition", "original")
    if not isinstance(edition, str) or edition not in EDITIONS:
        given = repr(edition) if isinstance(edition, str) else f"a {type(edition).__name__}"
        raise CatalogError(f"{where}: edition must be one of {', '.join(EDITIONS)}, "
                           f"not {given[:40]}")
    recipe = raw.get("recipe", [])
    allowed = EDITIONS[edition].ingredients
    if not isinstance(recipe, list) or not 2 <= len(recipe) <= 4:
        raise CatalogError(f"{where}: 'recipe' must list 2 to 4 ingredients")
    for ing in recipe:
        if ing not in allowed:
            raise CatalogError(f"{where}: {ing!r} is not an ingredient of {edition} "
                               f"({', '.join(allowed)})")
    specialty = raw.get("specialty", False)
    if not isinstance(specialty, bool):
        raise CatalogError(f"{where}: 'specialty' must be true or false")
    return CardInfo(tag.strip(), drink, tuple(recipe), specialty, edition)


class Catalog:
    def __init__(self, cards: Iterable[CardInfo] = ()):
        self.cards: dict[str, CardInfo] = {}
        for c in cards:
            self.cards[c.tag] = c
        self._specialty: tuple[int, frozenset[str]] | None = None

    def get(self, tag: str | None) -> CardInfo | None:
        return None if tag is None else self.cards.get(tag)

    @property
    def specialty_tags(self) -> frozenset[str]:
        """The tags of specialty-menu orders (worked out once: the screen asks the engine
        what it would accept with them at every redraw)."""
        got = self._specialty
        if got is None or got[0] != len(self.cards):
            got = self._specialty = (len(self.cards),
                                     frozenset(t for t, c in self.cards.items() if c.specialty))
        return got[1]

    def __len__(self) -> int:
        return len(self.cards)

    @classmethod
    def load(cls, path: str) -> Catalog:
        try:
            data = read_toml(path)
        except FileNotFoundError:
            raise CatalogError(f"{path}: no such catalog file") from None
        except TomlError as exc:                # where and what, in our words
            raise CatalogError(str(exc)) from None
        except RecursionError:
            raise CatalogError(f"{path}: not a card catalog (values nested too deeply)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"{path}: cannot be read ({exc})") from None
        cards = data.get("card", [])
        if not isinstance(cards, list):
            raise CatalogError(f"{path}: cards must be [[card]] tables")
        seen: set[str] = set()
        out = []
        for n, raw in enumerate(cards, 1):
            if not isinstance(raw, dict):
                raise CatalogError(f"{path}: card {n} must be a [[card]] table")
            info = _check(path, n, raw)
            if info.tag in seen:
                raise CatalogError(f"{path}: the tag {info.tag!r} appears twice")
            seen.add(info.tag)
            out.append(info)
        return cls(out)

    @classmethod
    def load_many(cls, paths: Iterable[str],
                  on_error: Callable[[CatalogError], None] | None = None) -> Catalog:
        """Merge catalogs (later files win); missing files are skipped. With ``on_error``,
        a file that cannot be read is reported to it (a CatalogError) and skipped."""
        merged = cls()
        for p in paths:
            p = os.path.expanduser(p)
            if os.path.exists(p):
                try:
                    merged.cards.update(cls.load(p).cards)
                except CatalogError as exc:
                    if on_error is None:
                        raise
                    on_error(exc)
        return merged

    @classmethod
    def configured(cls, paths: Iterable[str], example: bool,
                   on_error: Callable[[CatalogError], None]) -> Catalog:
        """The table's catalogs (``[catalog] paths``), plus the bundled example one when
        ``[catalog] example`` asks; a file that cannot be read goes to ``on_error``."""
        cat = cls.load_many(paths, on_error=on_error)
        if example:
            cat = cls([*cls.example().cards.values(), *cat.cards.values()])
        return cat

    @classmethod
    def example(cls) -> Catalog:
        # the package's own file (installed unpacked), read without importlib.resources,
        # whose readers and zipfile would load with every start
        return cls.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                     EXAMPLE))

    def with_card(self, card: CardInfo) -> Catalog:
        return Catalog([*self.cards.values(), card])

    def save(self, path: str) -> None:
        """Write the catalog atomically (temp file, fsync, rename): never half a file."""
        lines = ["# Coffee Rush card catalog (edited by coffee-companion enroll)", ""]
        for c in self.cards.values():
            lines += ["[[card]]", f"tag = {_q(c.tag)}", f"drink = {_q(c.drink)}",
                      "recipe = [" + ", ".join(_q(i) for i in c.recipe) + "]",
                      f"specialty = {'true' if c.specialty else 'false'}",
                      f"edition = {_q(c.edition)}", ""]
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        import tempfile          # here: only an enrolled card writes the catalog
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".catalog-", suffix=".toml")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
