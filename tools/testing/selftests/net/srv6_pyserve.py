# SPDX-License-Identifier: GPL-2.0
"""A Python helper's commands without a Python start-up each.

A test runs its Python helpers (stamp_test.py, ioam6_ext.py) dozens of
times, and Python's start-up with the helper's imports takes seconds in a
TCG guest.  `HELPER serve DIR`, started once in the namespace where the
commands must run, calls serve(DIR, main): each request runs the helper's
main() with the request's arguments in a child forked for it, as
`timeout T python3 HELPER ARGS > OUT 2> ERR` would, and requests may
overlap.  srv6_oam_lib.sh's pyserve_start and pyserve_call are the shell's
side.

A request is a line on the FIFO DIR/req, its fields separated by 0x1f: the
requester's FIFO, to which the exit status is written, the files for the
standard output and the standard error, the bound T in seconds, then the
command's arguments.
"""

import os
import signal
import sys
import threading
import traceback


def _run(main, out, err, bound, args):
    """In a child: main() with @args, its output in @out and @err, killed
    by SIGALRM after @bound seconds; the child's exit status is main's."""
    rc = 1
    try:
        for path, target in ((out, 1), (err, 2)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, target)
            os.close(fd)
        signal.alarm(bound)
        sys.argv = [sys.argv[0]] + args
        rc = main()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else int(e.code is not None)
    except BaseException:
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc or 0)


def _serve_one(main, fields):
    rc_fifo, out, err, bound = fields[:4]
    pid = os.fork()
    if pid == 0:
        _run(main, out, err, int(bound), fields[4:])
    _, status = os.waitpid(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    with open(rc_fifo, 'w') as f:
        f.write('%d\n' % (rc if rc >= 0 else 128 - rc))


def serve(directory, main):
    """Serve the requests of DIRECTORY/req with @main, for ever."""
    req = os.path.join(directory, 'req')
    os.mkfifo(req + '.new')
    os.rename(req + '.new', req)
    # read and write: no end of file when a requester closes it
    with os.fdopen(os.open(req, os.O_RDWR), 'r') as f:
        for line in f:
            fields = line.rstrip('\n').split('\x1f')
            if fields and fields[-1] == '':
                fields.pop()
            if len(fields) < 5 or not fields[3].isdigit():
                print('srv6_pyserve: bad request %r' % line, file=sys.stderr)
                continue
            threading.Thread(target=_serve_one, daemon=True,
                             args=(main, fields)).start()
    return 0
