def increment(value):
    return value + 1


def decrement(value):
    return value - 1
