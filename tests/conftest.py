from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def mini_path() -> Path:
    return FIXTURES / "mini"


@pytest.fixture
def mini_suite():
    from callbench.suite_check import load_suite

    return load_suite(FIXTURES / "mini")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Tests may talk to loopback servers they start themselves, and nothing else."""
    import ipaddress
    import socket

    real_connect = socket.socket.connect

    def guarded(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                loopback = ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = host == "localhost"
            if not loopback:
                raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
