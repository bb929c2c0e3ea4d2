import sys


def main():
    setup()
    run()


def other():
    pass
