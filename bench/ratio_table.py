"""Google Benchmark JSON (stdin) to a table of medians and their ratio to
the benchmark named on the command line, measured in the same run."""
import json
import sys

baseline = sys.argv[1]
rows = [b for b in json.load(sys.stdin)["benchmarks"]
        if b.get("aggregate_name") == "median"]
base = next(b["cpu_time"] for b in rows if b["run_name"] == baseline)
print("%-22s %14s %12s" % ("call", "ns (median)", "x " + baseline))
for b in rows:
    print("%-22s %14.1f %12.1f" % (b["run_name"], b["cpu_time"], b["cpu_time"] / base))
