# SPDX-License-Identifier: GPL-2.0
"""What the host tests of make check-host share: their result lines, in
the style of the selftests' log_test, and whether one failed.  For the
tests in the source tree only: make install-tools does not install it."""

failed = 0


def check(name, good, detail=""):
    """One TEST: line; a failure prints its detail and is remembered."""
    global failed
    print(f"TEST: {name:<66} [{' OK ' if good else 'FAIL'}]")
    if not good:
        failed = 1
        print(f"\t{detail}")
