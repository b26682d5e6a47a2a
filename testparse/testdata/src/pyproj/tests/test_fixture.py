import pytest


@pytest.fixture
def db():
    raise RuntimeError("db down")


def test_uses_db(db):
    assert db


def test_ok():
    assert True
