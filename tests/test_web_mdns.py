"""The phone view is announced on the LAN: a real mDNS browser resolves
"Coffee Rush table" (_http._tcp) to the server's port."""
from zeroconf import Zeroconf

from companion.outputs.web.mdns import SERVICE, Announcer, addresses


def test_the_table_is_found_by_name():
    ips = addresses("0.0.0.0")
    announcer = Announcer(18999, "0.0.0.0", name="Coffee Rush table test")
    announcer.start()
    try:
        assert announcer.registered.wait(10), "not announced (no multicast here?)"
        zc = Zeroconf()
        try:
            info = zc.get_service_info(SERVICE, f"Coffee Rush table test.{SERVICE}", timeout=3000)
        finally:
            zc.close()
    finally:
        announcer.close()
    assert info is not None and info.port == 18999
    assert set(info.parsed_addresses()) == set(ips)
    assert info.properties[b"path"] == b"/"


def test_a_specific_bind_address_is_the_one_announced():
    assert addresses("192.168.1.20") == ["192.168.1.20"]
