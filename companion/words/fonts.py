"""Fonts for every language we speak, Korean included (the screen's and the summary's).

Latin letters (with é, ñ, ã, à, ...) come from DejaVu Sans; Hangul from a
Korean font found through fontconfig, preferring Debian's ``fonts-noto-cjk``
(Noto Sans CJK) or ``fonts-nanum`` (Nanum Gothic)::

    fc-list ':lang=ko' -f '%{file}\\n'      # every font that covers Korean
    fc-match -f '%{file}' ':lang=ko'       # fontconfig's own pick

A text is drawn run by run: each character goes to the first font of the
chain (Latin, then Hangul) that has a glyph for it, so a Korean name shows in
an English screen and an accented name in a Korean one.

When no Hangul font is installed the screen still works: Korean letters show
as boxes, one warning names the package to install (``sudo apt install
fonts-nanum`` or ``fonts-noto-cjk``), and ``hangul_missing()`` lets the
settings screen show the same hint. Without fontconfig or DejaVu, pygame's
own default font is used.

``get_font(size, bold=False)`` is what ``widgets.font`` calls; fonts are
cached per (size, bold).
"""
from __future__ import annotations

import logging
import os
import subprocess
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import pygame

log = logging.getLogger("companion.words.fonts")

HANGUL_PACKAGES = ("fonts-nanum", "fonts-noto-cjk")
INSTALL_COMMAND = "sudo apt install fonts-nanum"

# Preferred Korean font files (basenames), best first; then anything fontconfig lists.
_HANGUL_REGULAR = ("NotoSansCJK-Regular.ttc", "NotoSansCJKkr-Regular.otf",
                   "NanumBarunGothic.ttf", "NanumGothic.ttf", "NanumSquareR.ttf")
_HANGUL_BOLD = ("NotoSansCJK-Bold.ttc", "NotoSansCJKkr-Bold.otf", "NanumBarunGothicBold.ttf",
                "NanumGothicExtraBold.ttf", "NanumSquareB.ttf", "NanumGothicBold.ttf")


def is_hangul(ch: str) -> bool:
    """A Hangul syllable or jamo (the letters that need a Korean font)."""
    o = ord(ch)
    return (0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F
            or 0xA960 <= o <= 0xA97F or 0xD7B0 <= o <= 0xD7FF)


def has_hangul(text: str) -> bool:
    return any(is_hangul(c) for c in text)


# --- finding font files -----------------------------------------------------------------

def _run(cmd: Sequence[str]) -> str | None:
    try:
        out = subprocess.run(list(cmd), capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def _readable(path: str) -> bool:
    return bool(path) and os.path.isfile(path) and os.access(path, os.R_OK)


@dataclass(frozen=True)
class FontFiles:
    """Font files found on this machine (None = use pygame's default font)."""
    latin: str | None = None
    latin_bold: str | None = None
    hangul: str | None = None
    hangul_bold: str | None = None


def _pick(files: list[str], preferred: Sequence[str]) -> str | None:
    by_name = {os.path.basename(f): f for f in files}
    for name in preferred:
        if name in by_name:
            return by_name[name]
    return None


def find_font_files(fc_match: str = "fc-match", fc_list: str = "fc-list") -> FontFiles:
    """Ask fontconfig for a Latin and a Korean font (regular and bold)."""
    def match(pattern: str) -> str | None:
        out = _run([fc_match, "-f", "%{file}", pattern])
        path = (out or "").strip()
        return path if _readable(path) else None

    latin = match("DejaVu Sans")
    latin_bold = match("DejaVu Sans:bold") or latin
    listed = _run([fc_list, ":lang=ko", "-f", "%{file}\\n"]) or ""
    korean = [p.strip() for p in listed.splitlines() if _readable(p.strip())]
    hangul = _pick(korean, _HANGUL_REGULAR)
    if hangul is None and korean:
        chosen = match(":lang=ko")
        hangul = chosen if chosen in korean else sorted(korean)[0]
    hangul_bold = _pick(korean, _HANGUL_BOLD) if hangul else None
    if hangul and not hangul_bold:
        chosen = match(":lang=ko:weight=bold")
        hangul_bold = chosen if chosen in korean else hangul
    return FontFiles(latin, latin_bold, hangul, hangul_bold)


# --- a font that draws each character with the first font that has it ---------------------

#: held while a face is opened or let go: SDL_ttf opens every face on one FreeType library,
#: and FreeType asks that faces of one library be made and done with one at a time. The
#: screen opens faces on the main thread; the end summary (a PDF or PNG from the phone
#: view) on a web worker's thread, with a font book of its own.
_FACES = threading.RLock()

class _Face:
    """One font file at one size: the pygame font, and a glyph-coverage check.

    A face that is not the chain's first (the Korean face beside the Latin one) is opened
    once for its metrics and then closed again until a character needs it: an open face
    holds its tables and glyph cache in C memory (about 0.2 MB each, a font size each),
    and a table that never shows Korean never needs them."""

    def __init__(self, path: str | None, size: int, bold: bool, keep: bool = True):
        self.path = path
        self._size = size
        self._bold = bold
        opened = self._open()
        self.ascent = opened.get_ascent()
        self.descent = opened.get_descent()
        self.linesize = opened.get_linesize()
        self._font: pygame.font.Font | None = opened if keep else None
        self.used = keep            # asked for since the last ``FontBook.close_idle``

    def _open(self) -> pygame.font.Font:
        with _FACES:
            if self.path is None:
                f = pygame.font.Font(None, round(self._size * 1.3))   # the default runs small
                f.set_bold(self._bold)
                return f
            return pygame.font.Font(self.path, self._size)

    @property
    def font(self) -> pygame.font.Font:
        self.used = True
        if self._font is None:
            self._font = self._open()
        return self._font

    @property
    def is_open(self) -> bool:
        return self._font is not None

    def close_idle(self) -> bool:
        """Close the pygame font when it was not asked for since the last call (its
        metrics stay; ``font`` opens it again when needed). True: it was closed now."""
        closed = not self.used and self._font is not None
        if closed:
            with _FACES:
                self._font = None           # (its face done with here, under the lock)
        self.used = False
        return closed

    def covers(self, ch: str) -> bool:
        """Whether the file has a glyph for ``ch`` (asked once per file, whatever the size).

        Asked of a freetype font opened for the question and closed again: freetype maps
        the font file into memory for as long as it is open (about 0.35 MB of a DejaVu
        file resident, issue 19), and a table asks about a handful of characters a day
        (about 0.1 ms each, once)."""
        key = (self.path, ch)
        got = _covered.get(key)
        if got is None:
            import pygame.freetype
            if not pygame.freetype.get_init():
                pygame.freetype.init()
            try:
                with _FACES:
                    got = pygame.freetype.Font(self.path, self._size).get_metrics(ch)[0] \
                        is not None
            except (pygame.error, OSError, IndexError):
                got = False
            _covered[key] = got
        return got


#: (font file, character) -> whether the file has a glyph for it
_covered: dict[tuple[str | None, str], bool] = {}


class ChainFont:
    """Looks like a ``pygame.font.Font`` (render, size, get_height, get_linesize,
    get_ascent, get_descent) but draws every character with the first face of
    its chain that has a glyph for it."""

    def __init__(self, faces: list[_Face], on_missing=None):
        self.faces = faces
        self._on_missing = on_missing
        # the faces never change: their metrics are worked out once
        self._ascent = max(f.ascent for f in faces)
        self._descent = min(f.descent for f in faces)
        self._linesize = max(max(f.linesize for f in faces),
                             self._ascent - self._descent)
        self._sizes: dict[str, tuple[int, int]] = {}
        #: each character's face, found once (wrapping a line measures every prefix of it:
        #: the faces were looked up again for each character of each)
        self._face_of: dict[str, int] = {}

    @property
    def first(self) -> pygame.font.Font:
        return self.faces[0].font

    def _face_for(self, ch: str) -> int:
        if len(self.faces) == 1 or ch in " \t" or ord(ch) < 0x80:
            return 0
        for i, face in enumerate(self.faces):
            if face.covers(ch):
                return i
        if self._on_missing is not None and is_hangul(ch):
            self._on_missing()
        return 0

    def runs(self, text: str) -> list[tuple[int, str]]:
        """``text`` cut into (face index, piece) runs."""
        if text.isascii():
            return [(0, text)] if text else []
        out: list[tuple[int, str]] = []
        face_of = self._face_of
        for ch in text:
            i = face_of.get(ch)
            if i is None:
                i = self._face_for(ch)
                if ch.isascii() or i or not is_hangul(ch):   # (a missing Hangul: said each time)
                    face_of[ch] = i
            if out and out[-1][0] == i:
                out[-1] = (i, out[-1][1] + ch)
            else:
                out.append((i, ch))
        return out

    def get_ascent(self) -> int:
        return self._ascent

    def get_descent(self) -> int:
        return self._descent

    def get_height(self) -> int:
        return self._ascent - self._descent

    def get_linesize(self) -> int:
        return self._linesize

    def size(self, text: str) -> tuple[int, int]:
        """Width and height of ``text`` (measured once per text: fitting asks again and again)."""
        got = self._sizes.get(text)
        if got is None:
            if len(self._sizes) > 4000:
                self._sizes.clear()
            width = sum(self.faces[i].font.size(piece)[0] for i, piece in self.runs(text))
            got = (width, self._ascent - self._descent)
            self._sizes[text] = got
        return got

    def render(self, text: str, antialias: bool, color, background=None) -> pygame.Surface:
        """``text`` on a surface ``get_height()`` high, whatever its faces: pygame's own
        render of a face is a pixel higher than its ascent less its descent (SDL_ttf adds
        the baseline's row), which is what a text is fitted by; a chain of one face (no
        Korean font installed) drew a pixel outside the box it was fitted to."""
        if len(self.faces) == 1 and self._on_missing is not None and has_hangul(text):
            self._on_missing()
        runs = self.runs(text)
        parts = [(self.faces[i].font, self.faces[i].font.render(piece, antialias, color))
                 for i, piece in runs]
        width = sum(img.get_width() for _, img in parts)
        ascent = self.get_ascent()
        out = pygame.Surface((max(1, width), self.get_height()), pygame.SRCALPHA)
        if background is not None:
            out.fill(background)
        x = 0
        for font, img in parts:
            out.blit(img, (x, ascent - font.get_ascent()))
            x += img.get_width()
        return out

    def metrics(self, text: str) -> list:
        return [self.faces[self._face_for(ch)].font.metrics(ch)[0] for ch in text]

    def set_bold(self, value: bool) -> None:   # bold comes from the bold files
        pass


# --- the font book ------------------------------------------------------------------------

_books: weakref.WeakSet[FontBook] = weakref.WeakSet()


_hooked = False


#: how many times pygame.quit() has freed the fonts (callers that keep fonts compare it)
quits = 0


def forget_fonts() -> None:
    """After ``pygame.font.quit()`` (which, unlike ``pygame.quit()``, runs no quit hook):
    every font book drops its fonts, and whoever keeps fonts sees ``quits`` change. A font
    kept from before a quit and used after ``pygame.font.init()`` crashes the process (the
    summary's font book did so in the suite, once the screen's ``App.close`` had quit the
    fonts and another test had initialised them again)."""
    global _hooked
    hooked = _hooked              # (pygame's quit hook, if registered, stays registered)
    _forget_fonts()
    _hooked = hooked


def _forget_fonts() -> None:
    """pygame.quit() frees every font: drop the cached ones (they must not be used again)."""
    global _hooked, quits
    _hooked = False           # pygame forgets its quit functions once it has run them
    quits += 1
    for b in list(_books):
        b.clear()


def _hook_quit() -> None:
    global _hooked
    if not _hooked:
        pygame.register_quit(_forget_fonts)
        _hooked = True


class FontBook:
    """Finds the font files once, then hands out cached fonts per (size, bold)."""

    def __init__(self, fc_match: str = "fc-match", fc_list: str = "fc-list",
                 files: FontFiles | None = None, logger: logging.Logger = log):
        self.fc_match = fc_match
        self.fc_list = fc_list
        self._files = files
        self._cache: dict[tuple[int, bool], ChainFont] = {}
        self.log = logger
        self._warned = False
        _books.add(self)

    @property
    def files(self) -> FontFiles:
        if self._files is None:
            self._files = find_font_files(self.fc_match, self.fc_list)
            f = self._files
            self.log.info("fonts: latin %s, korean %s", f.latin or "pygame default",
                          f.hangul or "none")
        return self._files

    def hangul_missing(self) -> bool:
        """True when no installed font can draw Korean letters."""
        return self.files.hangul is None

    def warn_missing_hangul(self) -> None:
        """Log, once, which Debian package brings the Korean letters."""
        if not self._warned:
            self._warned = True
            self.log.warning("No Korean (Hangul) font found: Korean text shows as boxes. "
                             "Install one with `%s` (or `sudo apt install fonts-noto-cjk`), "
                             "then restart the companion.", INSTALL_COMMAND)

    def font(self, size: int, bold: bool = False) -> ChainFont:
        size = max(6, int(size))
        key = (size, bold)
        if not pygame.font.get_init():
            self._cache.clear()           # fonts made before a pygame.font.quit() are gone
            pygame.font.init()
        got = self._cache.get(key)
        if got is None:
            _hook_quit()
            f = self.files
            hangul = f.hangul_bold if bold else f.hangul
            found = [self._face(f.latin_bold if bold else f.latin, size, bold),
                     self._face(hangul, size, bold, keep=False) if hangul is not None else None]
            faces = [x for x in found if x is not None] or [_Face(None, size, bold)]
            missing = self.warn_missing_hangul if len(faces) == 1 else None
            got = ChainFont(faces, on_missing=missing)
            self._cache[key] = got
        return got

    def _face(self, path: str | None, size: int, bold: bool,
              keep: bool = True) -> _Face | None:
        try:
            return _Face(path, size, bold, keep)
        except (pygame.error, OSError, FileNotFoundError) as exc:
            self.log.warning("cannot open font %s (%s): using pygame's default font", path, exc)
            return None if path is not None else _Face(None, size, bold)

    def close_idle(self) -> int:
        """Close the faces not used since the last call (each size opens a face of its own,
        about 0.2 MB of tables and glyphs in C memory; text fitted by shrinking a size at a
        time opens 30-40 sizes, most used for a few texts and then only through the
        screen's caches of measured and drawn text). The fonts stay, with their metrics
        and measured widths: a closed face opens again when a text needs it. How many were
        closed."""
        return sum(face.close_idle() for chain in self._cache.values() for face in chain.faces)

    def clear(self) -> None:
        with _FACES:
            self._cache.clear()


_book: FontBook | None = None


def book() -> FontBook:
    global _book
    if _book is None:
        _book = FontBook()
    return _book


def set_book(new: FontBook | None) -> None:
    """Use ``new`` from now on (tests: a book whose discovery fails)."""
    global _book
    _book = new


def get_font(size: int, bold: bool = False) -> ChainFont:
    """A font of ``size`` px for any screen language (cached per size and weight)."""
    return book().font(size, bold)


def close_idle() -> int:
    """``FontBook.close_idle`` of the book in use (none yet: nothing to close)."""
    return _book.close_idle() if _book is not None else 0


def hangul_missing() -> bool:
    return book().hangul_missing()
