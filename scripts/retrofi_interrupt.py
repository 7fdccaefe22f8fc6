"""Interruptions: Ctrl-C (SIGINT), SIGTERM and SIGHUP end a run cleanly.

install() turns each into a KeyboardInterrupt in the main thread, so that
every stage's cleanup runs (temporary trees are removed, nothing
half-written is kept), and stops the run's child processes: a child in a
session of its own (QEMU) never sees the terminal's Ctrl-C, and a stage
running in a worker thread would otherwise go on until its child exits.
Until the process ends, children started after the interrupt (a queued
target's next stage) are stopped too.  A second signal during the cleanup
is ignored, so that the cleanup itself is not cut short (SIGKILL still
stops everything at once).
"""

import concurrent.futures
import os
import signal
import threading
import time

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_state = {"signal": None}


def install():
    for sig in SIGNALS:
        # A signal the caller ignores (nohup's SIGHUP, SIGINT of a background
        # job) stays ignored.
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handler)


def exit_code():
    """128 + the signal that interrupted the run (130 for Ctrl-C)."""
    return 128 + (_state["signal"] or signal.SIGINT)


def _handler(signum, frame):
    if _state["signal"] is not None:
        return
    _state["signal"] = signum
    threading.Thread(target=_stop_children, name="retrofi-interrupt", daemon=True).start()
    raise KeyboardInterrupt


def completed(futures, poll=0.5):
    """The futures as they complete, like concurrent.futures.as_completed(),
    but the waiting main thread returns to Python every poll seconds.

    The kernel may deliver a signal sent to the process (a terminal's
    Ctrl-C) to any of its threads. CPython then only marks it pending
    until the main thread runs Python code again, and a main thread
    blocked in a lock without a timeout (as_completed() waiting on a build
    that runs for minutes) never does: the handler, and so the stop of
    the children, would wait for the build to end."""
    pending = set(futures)
    while pending:
        done, pending = concurrent.futures.wait(
            pending, timeout=poll, return_when=concurrent.futures.FIRST_COMPLETED)
        yield from done


def _descendants(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _stop(pid):
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGTERM)   # its own process group (QEMU)
        else:
            os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_children():
    me = os.getpid()
    while True:
        for pid in _descendants(me):
            _stop(pid)
        time.sleep(0.2)
