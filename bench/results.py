"""bench/RESULTS.md is kept in sections, one per benchmark, each between
`<!-- NAME -->` and `<!-- /NAME -->`: a run rewrites its own section and leaves the others
(and the hand-written notes around them) as they are."""
import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")


def write_section(name, text):
    begin, end = "<!-- %s -->" % name, "<!-- /%s -->" % name
    block = "%s\n%s%s" % (begin, text if text.endswith("\n") else text + "\n", end)
    old = open(PATH).read() if os.path.exists(PATH) else ""
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + block + "\n"
    with open(PATH, "w") as f:
        f.write(new)
