def add(a, b):
    return a + b


def sub(a, b):
    # Deliberately wrong so the tests fail.
    return a + b
