#!/usr/bin/env python3
"""Checks that every top-level key of a YAML config loom-plan --emit wrote
is in a runtime's key list (docs/runtimes/*/*.keys, one key a line, '#'
comments). Prints the keys it does not know and exits 1; exits 1 too when
the config has no key at all."""
import re
import sys

if len(sys.argv) != 3:
    sys.exit("usage: check-runtime-keys.py KEYS CONFIG.yml")
with open(sys.argv[1]) as f:
    known = {line.strip() for line in f
             if line.strip() and not line.startswith("#")}
keys = []
with open(sys.argv[2]) as f:
    for number, line in enumerate(f, 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = re.match(r"([A-Za-z_][A-Za-z0-9_]*):", line)
        if not match:
            sys.exit("%s:%d: not a top-level 'key: value' line: %s"
                     % (sys.argv[2], number, line.rstrip()))
        keys.append(match.group(1))
unknown = [k for k in keys if k not in known]
for k in unknown:
    print("unknown key: %s (not in %s)" % (k, sys.argv[1]))
if not keys:
    sys.exit("%s: no keys" % sys.argv[2])
if len(set(keys)) != len(keys):
    sys.exit("%s: a key is written twice" % sys.argv[2])
if unknown:
    sys.exit(1)
print("%d keys, all in %s" % (len(keys), sys.argv[1].split("/")[-1]))
