"""Progress of a long stage: one line while it runs, so that a build or a
boot of several minutes is never silent.

A ticker thread calls a reader every few seconds: PROGRESS_TTY seconds on a
terminal, PROGRESS_PLAIN seconds in a log that is not one (a CI log gets a
plain line now and then, not a flood).  The reader returns the line to
print, or None when there is nothing to say yet; a line is printed only
when it differs from the last one.
"""

import contextlib
import sys
import threading
import time

PROGRESS_TTY = 5
PROGRESS_PLAIN = 30


@contextlib.contextmanager
def ticker(prefix, read, stream=None, every=None):
    """While the block runs, print "<prefix> <read(seconds)> (<seconds> s)"
    whenever read() says something new.  read gets the seconds since the
    start; an OSError from it is a moment with nothing to say."""
    stream = stream or sys.stdout
    every = every or (PROGRESS_TTY if stream.isatty() else PROGRESS_PLAIN)
    done = threading.Event()
    started = time.monotonic()

    def watch():
        last = None
        while not done.wait(every):
            seconds = time.monotonic() - started
            try:
                what = read(seconds)
            except OSError:
                continue
            if what is not None and what != last:
                last = what
                print(f"{prefix} {what} ({seconds:.0f} s)", file=stream, flush=True)
    t = threading.Thread(target=watch, name=f"progress {prefix}", daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


def count_since(path, start, pattern):
    """How many times the bytes regex pattern matches in the file at path
    after offset start (what a build wrote to its log since it began)."""
    with open(path, "rb") as f:
        f.seek(start)
        return len(pattern.findall(f.read()))
