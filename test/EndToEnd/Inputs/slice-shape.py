"""Prints the shape of the token slices of a module's #loom.pipeline: their
total, and whether they are equal but for a short tail or non-increasing.
With a window W (second argument), whether the slices that start once the
window is full (at token W or later) are equal but for a short tail, and
the ones before no shorter."""
import re
import sys

text = open(sys.argv[1]).read()
m = re.search(r"#loom\.pipeline<stages = \d+, slices = \[([0-9, ]+)\]", text)
if not m:
    sys.exit("no #loom.pipeline with slices")
s = [int(x) for x in m.group(1).split(",")]
print("total %d;" % sum(s), end=" ")
if len(sys.argv) > 2:
    window = int(sys.argv[2])
    starts = [sum(s[:i]) for i in range(len(s))]
    past = [x for x, at in zip(s, starts) if at >= window]
    early = [x for x, at in zip(s, starts) if at < window]
    tail = past[:-2] if len(past) > 2 else past[:1]
    if (past and len(set(tail)) == 1 and all(x <= tail[0] for x in past)
            and all(x >= tail[0] for x in early)):
        print("equal past the window but the last 2 or fewer; earlier ones no shorter")
    else:
        print("other: %s" % s)
    sys.exit(0)
head = s[:-2] if len(s) > 2 else s[:1]
if len(set(head)) == 1 and all(x <= head[0] for x in s):
    print("equal but the last 2 or fewer")
elif all(a >= b for a, b in zip(s, s[1:])) and s[0] > s[-1]:
    print("non-increasing, first longer than last")
else:
    print("other: %s" % s)
