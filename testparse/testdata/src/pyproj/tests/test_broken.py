import not_a_real_module  # noqa: F401


def test_never_collected():
    assert True
