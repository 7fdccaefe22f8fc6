"""One error type for every stage: what failed, where, and what to do.

A RetrofiError reaches the CLI, which prints it on one line group and exits
with its code; nothing else in retrofi prints tracebacks for expected failures.
"""


class RetrofiError(Exception):
    """An expected failure with a clear message.

    what:  what failed ("package linux-headers-9.9-amd64 not found")
    where: the thing it concerns (a file:line, a package, a directory)
    fix:   what the user should do about it
    """

    def __init__(self, what, where=None, fix=None, code=1):
        self.what = what
        self.where = where
        self.fix = fix
        self.code = code
        super().__init__(self.format())

    def format(self):
        msg = "retrofi: error: "
        if self.where:
            msg += f"{self.where}: "
        msg += self.what
        if self.fix:
            msg += f"\n  fix: {self.fix}"
        return msg
