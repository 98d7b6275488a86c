"""The one PDF file writer: numbered objects, the cross-reference table and the trailer.
Used by the sticker sheets (``labels``) and the game's one-page summary (``summary``),
which build their own objects (no PDF library: the files are small and simple)."""
from __future__ import annotations


def pdf_file(objects: list[bytes], root: int, info: int) -> bytes:
    """A whole PDF 1.4 file of ``objects`` (object n is ``objects[n - 1]``), whose catalog is
    object ``root`` and document information object ``info``."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += (b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, root, info, xref))
    return bytes(out)
