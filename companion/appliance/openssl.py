"""OpenSSL's Python modules stay out of the service while nothing configured needs them
(issue 19: resident memory).

``ssl`` (``_ssl``: OpenSSL's libssl and libcrypto mapped, its tables built) costs about
4-5 MB resident on x86-64, and ``hashlib``'s ``_hashlib`` about 0.5 MB more beside it (3.7 MB
when it is the one that maps libcrypto). What needs them in the service:

- ``_hashlib``: nothing. ``hashlib`` falls back to Python's own ``_sha256``, ``_md5``, ...
  (the same digests: our sha256 of game records, MQTT payloads and pairing tokens), ``hmac``
  takes ``compare_digest`` from ``_operator``, ``secrets`` draws from ``os.urandom`` as ever.
- ``ssl``: MQTT with TLS, nothing else. Plain MQTT does not: paho-mqtt 2.x imports ``ssl``
  as optional, and the two exception names its socket reads and writes look up are given to
  it by ``companion.outputs.mqtt.connection.PlainSockets`` (a plain socket raises neither).
  The phone view's server (``outputs/web/server.py``: plain http on the standard library's
  sockets and threads) needs none; ``http.client`` and ``urllib`` take it as optional.

So ``keep_out(cfg)`` (``service.main`` once the config is loaded, before any of them is
imported) puts a finder first on the import path that answers "no such module" for
``_hashlib`` and ``ssl``/``_ssl``: the service then runs its whole life without OpenSSL,
phones and all. With ``[mqtt] tls = true`` (and a broker) nothing is kept out: everything
loads as it always did. ``coffee-companion doctor`` says which applies.
"""
from __future__ import annotations

import sys
from typing import Any

HASHLIB = frozenset({"_hashlib"})
SSL = frozenset({"ssl", "_ssl"})

_kept: set[str] = set()        # the modules the finder answers "not found" for


def tls_configured(cfg: Any) -> bool:
    """Whether a configured feature speaks TLS: MQTT to a broker with ``tls = true``."""
    return bool(cfg["mqtt"]["host"]) and bool(cfg["mqtt"]["tls"])


class _WithoutOpenSSL:
    """A finder ahead of the others: the modules in ``_kept`` are not found."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name in _kept:
            raise ModuleNotFoundError(
                f"No module named {name!r} (kept out: no TLS configured, see "
                "companion/appliance/openssl.py)", name=name)
        return None


def kept_out() -> frozenset[str]:
    """The modules kept out now."""
    return frozenset(_kept)


def keep_out(cfg: Any) -> frozenset[str]:
    """Keep out what ``cfg`` does not need (see the module's doc; a module imported already
    stays); a later config that needs more lets it in again. Returns what is kept out."""
    let_in(HASHLIB | SSL)
    if tls_configured(cfg):
        return kept_out()
    _kept.update(name for name in HASHLIB | SSL if sys.modules.get(name) is None)
    if _kept and _WithoutOpenSSL not in sys.meta_path:
        sys.meta_path.insert(0, _WithoutOpenSSL)
    return kept_out()


def let_in(names: frozenset[str]) -> None:
    """``names`` import as ever from now on."""
    _kept.difference_update(names)
    if not _kept and _WithoutOpenSSL in sys.meta_path:
        sys.meta_path.remove(_WithoutOpenSSL)
