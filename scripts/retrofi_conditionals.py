"""The preprocessor conditionals of a C source file: every #if, #ifdef
and #ifndef with its #elif and #else branches and its #endif, nested, and
for each line the (conditional, branch) pairs it sits in. Enough for the
shim census (retrofi_api_census.check_blocks) to tell in which branch of which
guard a line is compiled; conditions are kept as text, never evaluated.
"""

import dataclasses
import re

DIRECTIVE_RE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
NOT_DEFINED_RE = re.compile(r"^!\s*defined\s*(?:\(\s*(\w+)\s*\)|(\w+))$")


@dataclasses.dataclass(eq=False)
class Cond:
    """One #if/#ifdef/#ifndef ... #endif (compared by identity)."""
    line: int              # index of its first line
    directive: str         # if | ifdef | ifndef
    cond: str              # its condition, comments and whitespace folded
    end: int = -1          # index of its #endif (-1: never closed)
    branches: list = dataclasses.field(default_factory=list)  # their first lines

    def undefined(self):
        """The names without which alone its first branch is compiled: X
        of "#ifndef X", and of each "!defined(X)" of an #if that is a
        conjunction of terms."""
        if self.directive == "ifndef":
            return {self.cond.split()[0]} if self.cond else set()
        if self.directive != "if" or "||" in self.cond:
            return set()
        return {m.group(1) or m.group(2) for m in
                (NOT_DEFINED_RE.match(t.strip()) for t in self.cond.split("&&")) if m}


def conditionals(lines):
    """(conds, where): the Conds of a file's lines in order, and for each
    line the tuple of (Cond, branch index) it sits in, outermost first. A
    directive's own lines (with their continuations) sit outside the
    branch it opens or closes."""
    conds, stack, where = [], [], []
    i = 0
    while i < len(lines):
        j = i
        while lines[j].rstrip().endswith("\\") and j + 1 < len(lines):
            j += 1
        m = DIRECTIVE_RE.match(lines[i])
        directive = m.group(1) if m else None
        closed = stack.pop() if directive in ("elif", "else", "endif") and stack else None
        where += [tuple(stack)] * (j - i + 1)
        if directive in ("if", "ifdef", "ifndef"):
            text = " ".join([m.group(2)] + lines[i + 1:j + 1]).replace("\\", " ")
            cond = " ".join(re.sub(r"/\*.*?\*/|//.*$", " ", text).split())
            c = Cond(i, directive, cond, branches=[i])
            conds.append(c)
            stack.append((c, 0))
        elif closed and directive == "endif":
            closed[0].end = i
        elif closed:
            closed[0].branches.append(i)
            stack.append((closed[0], closed[1] + 1))
        i = j + 1
    return conds, where
