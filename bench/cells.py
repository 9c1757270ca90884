"""A benchmark cell measured more than once: eddy and nginx alternately, `rounds` times, the row
their medians. One 4-second sample per server swings by ±20% on this shared 2-core machine
(bench/RESULTS.md, "Issue 33, ninth part"), more than the margins measured, so a single pair
of samples decides a ratio by chance."""

MiB = 1 << 20


def alternate(both, rounds, measure):
    """{server name: [measure(server) per round]}, the servers alternated and their order flipped
    each round (eddy, nginx, nginx, eddy...): the machine's drift within a run falls on both."""
    got = {s.name: [] for s in both}
    for r in range(rounds):
        for s in (both if r % 2 == 0 else both[::-1]):
            got[s.name].append(measure(s))
    return got


def median_row(label, got, index, better):
    """A results row (label, eddy, nginx, note, (eddy's non-2xx, nginx's)) of the medians of
    `got`, wrk's (requests/s, bytes/s, non-2xx) by server, by field `index` (bytes/s shown as
    MB/s), with each round's ratio in the note so that the cell's spread shows beside it."""
    scale = MiB if index == 1 else 1

    def median(xs):
        return sorted(x[index] for x in xs)[len(xs) // 2] / scale
    note = better
    if len(got["eddy"]) > 1:
        note += "; each round %s" % " ".join("%.2f" % (e[index] / n[index]) for e, n in zip(got["eddy"], got["nginx"]))
    bad = (sum(x[2] for x in got["eddy"]), sum(x[2] for x in got["nginx"]))
    return (label, median(got["eddy"]), median(got["nginx"]), note, bad)
