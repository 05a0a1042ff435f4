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


@pytest.fixture(scope="session", autouse=True)
def reports_match_the_model(tmp_path_factory):
    """Every report a test run writes beside a run.json (report.json, report-<tag>.json) must load
    as the typed Report: checked once, when the session ends, over the session's temp folders."""
    yield
    from callbench.reports.model import Report

    bad = []
    for path in tmp_path_factory.getbasetemp().rglob("report*.json"):
        if (path.parent / "run.json").exists():
            try:
                Report.model_validate_json(path.read_bytes())
            except ValueError as exc:  # pydantic's ValidationError
                bad.append(f"{path}: {exc}")
    assert not bad, "reports that do not match the Report model:\n" + "\n".join(bad)
