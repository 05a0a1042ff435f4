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
