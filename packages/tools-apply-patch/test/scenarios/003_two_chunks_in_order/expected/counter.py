def increment(value):
    return value + step()


def decrement(value):
    return value - step()
