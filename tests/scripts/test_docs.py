"""The README and the manual (docs/*.md, every page, whenever it was
added): every relative link leads to a file that exists and every
#anchor to a heading of its page; every `make <target>` they name is a
target of the repository's Makefile or of the output tree's
(drivers/out-tree/Makefile, what the release tarball builds with), read
from make's own database (make -pqrR), never from a list kept here; and the
manual's index (docs/README.md) links every page of docs/."""

import functools
import glob
import os
import re
import subprocess
import sys

from conftest import REPO

INDEX = os.path.join(REPO, "docs", "README.md")
# The Makefiles a documented `make` may run: the repository's, and the
# output tree's (the release tarball's top-level Makefile).
MAKEFILES = {"Makefile": REPO,
             "drivers/out-tree/Makefile": os.path.join(REPO, "drivers", "out-tree")}


def pages():
    """README.md and every page under docs/, relative to the repository."""
    found = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in
                                   glob.glob(os.path.join(REPO, "docs", "**", "*.md"),
                                             recursive=True))
    assert len(found) > 1, "docs/ has no page"
    return found


FENCE_RE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1", re.S)
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.M)


def prose(text):
    """text without its code (fenced blocks and code spans), where a link
    is a link."""
    return CODE_SPAN_RE.sub("", FENCE_RE.sub("", text))


def code(text):
    """The code of text: each fenced block's lines and each code span."""
    out = []
    for m in FENCE_RE.finditer(text):
        out += m.group(0).splitlines()[1:-1]
    out += [m.group(2) for m in CODE_SPAN_RE.finditer(FENCE_RE.sub("", text))]
    return out


def slug(heading):
    """GitHub's anchor of a heading: its text without markup, lower case,
    punctuation but '-' and '_' dropped, spaces as '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link's text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors of a markdown file's headings (a repeated one gets -1, -2, ...)."""
    seen, out = {}, set()
    with open(path, encoding="utf-8") as f:
        text = FENCE_RE.sub("", f.read())
    for m in HEADING_RE.finditer(text):
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def broken_links(name):
    """Each relative link of a page that leads nowhere, with why."""
    path = os.path.join(REPO, name)
    with open(path, encoding="utf-8") as f:
        text = prose(f.read())
    bad = []
    for target in LINK_RE.findall(text) + REF_DEF_RE.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):   # http:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part \
            else path
        if not os.path.realpath(dest).startswith(os.path.realpath(REPO) + os.sep):
            bad.append(f"{name}: ({target}): leads out of the repository")
        elif not os.path.exists(dest):
            bad.append(f"{name}: ({target}): {os.path.relpath(dest, REPO)} does not exist")
        elif anchor and not dest.endswith(".md"):
            bad.append(f"{name}: ({target}): an anchor into a file that is not markdown")
        elif anchor and anchor not in anchors(dest):
            bad.append(f"{name}: ({target}): {os.path.relpath(dest, REPO)} has no heading "
                       f"whose anchor is #{anchor}")
    return bad


@functools.lru_cache(maxsize=None)
def make_targets(makefile):
    """The targets make's database holds for a Makefile: explicit targets,
    and the patterns of its pattern rules (make -pq runs no recipe; -rR
    leaves make's built-in rules out, whose "%" would match any word)."""
    p = subprocess.run(["make", "-pqrR", "-f", os.path.basename(makefile), "--no-print-directory",
                        ".retrofi-no-such-target"],
                       cwd=MAKEFILES[makefile], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=dict(os.environ, LC_ALL="C"))
    db = p.stdout
    assert "# Make data base" in db, f"make -pq of {makefile} printed no database: {p.stderr}"
    explicit, patterns = set(), []
    not_a_target = False
    for line in db.splitlines():
        if line.startswith("# Not a target:"):
            not_a_target = True
            continue
        m = re.match(r"^([^#\s:=][^:=]*?):(?!=)", line)
        if m and not line.startswith("\t"):
            for t in m.group(1).split():
                if not_a_target or t.startswith("."):   # .PHONY, .DEFAULT, the goal above
                    continue
                if "%" in t:
                    patterns.append(re.compile(re.escape(t).replace("%", ".+")))
                else:
                    explicit.add(t)
        not_a_target = False
    assert "check" in explicit or "all" in explicit, f"no targets read from {makefile}"
    return frozenset(explicit), tuple(patterns)


def is_target(word):
    for makefile in MAKEFILES:
        explicit, patterns = make_targets(makefile)
        if word in explicit or any(p.fullmatch(word) for p in patterns):
            return True
    return False


# A make option that takes the next word as its argument.
MAKE_OPTS_WITH_ARG = {"-C", "-f", "-I", "-o", "-W", "-j", "-l", "--directory", "--file"}


def make_goals(line):
    """The goals of each `make ...` command of a line of code."""
    goals = []
    line = re.sub(r"(^|\s)#.*", "", line)   # a shell comment
    for m in re.finditer(r"(?:^|[\s;&|(`$])make((?:[ \t]+[^\s;&|#)`]+)*)", line):
        words = m.group(1).split()
        i = 0
        while i < len(words):
            w = words[i]
            if w in MAKE_OPTS_WITH_ARG and i + 1 < len(words):
                i += 2
                continue
            i += 1
            if w.startswith("-") or "=" in w or w in ("...", "\\"):
                continue
            if not re.fullmatch(r"[A-Za-z0-9_.%/-]+", w):
                break   # prose after the command ("make's", "make <target>")
            goals.append(w)
    return goals


def unknown_make_targets(name):
    with open(os.path.join(REPO, name), encoding="utf-8") as f:
        text = f.read()
    bad = []
    for line in code(text):
        for goal in make_goals(line):
            if not is_target(goal):
                bad.append(f"{name}: `make {goal}` ({line.strip()!r}): no target {goal!r} in "
                           + " or ".join(MAKEFILES))
    return bad


def test_every_link_and_make_target_named_in_the_docs_exists():
    bad = []
    for name in pages():
        bad += broken_links(name) + unknown_make_targets(name)
    assert not bad, "\n".join(bad)


def test_every_page_of_the_docs_is_linked_from_the_index():
    with open(INDEX, encoding="utf-8") as f:
        text = prose(f.read())
    linked = {os.path.normpath(os.path.join(os.path.dirname(INDEX), t.partition("#")[0]))
              for t in LINK_RE.findall(text) if t.partition("#")[0]}
    missing = [p for p in pages() if p.startswith("docs" + os.sep) and
               os.path.join(REPO, p) != INDEX and os.path.join(REPO, p) not in linked]
    assert not missing, f"docs/README.md (the manual's index) does not link: {missing}"


def test_the_checks_see_a_broken_link_an_anchor_and_a_made_up_make_target(tmp_path,
                                                                           monkeypatch):
    """The checks themselves, on a page made to fail them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "README.md").write_text("# Top\n\n## A `code` heading: here\n\n"
                                        "[ok](docs/p.md#the-page) [ok](#a-code-heading-here)\n")
    (docs / "p.md").write_text(
        "# The page\n\n[gone](nowhere.md) [bad anchor](../README.md#nope) "
        "[web](https://example.org/x)\n\n`[not a link](nowhere-either.md)`\n\n"
        "```sh\nmake check-fast\nmake no-such-target TARGETS=6.1\nmake defconfig-ath9k\n```\n"
        "Prose: `make matrix TARGETS=\"6.1\"` and `make -C dir install` and `make KLIB=/k`.\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", str(tmp_path))
    assert broken_links("README.md") == []
    assert broken_links("docs/p.md") == [
        "docs/p.md: (nowhere.md): docs/nowhere.md does not exist",
        "docs/p.md: (../README.md#nope): README.md has no heading whose anchor is #nope"]
    assert unknown_make_targets("docs/p.md") == [
        "docs/p.md: `make no-such-target` ('make no-such-target TARGETS=6.1'): no target "
        "'no-such-target' in Makefile or drivers/out-tree/Makefile"]
