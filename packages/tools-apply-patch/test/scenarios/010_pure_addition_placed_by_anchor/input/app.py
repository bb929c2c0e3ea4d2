import sys


def main():
    run()


def other():
    pass
