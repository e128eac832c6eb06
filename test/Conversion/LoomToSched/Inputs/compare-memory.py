# Compares loom-check-memory's largest stage (its remarks) with loom-sim's
# peak HBM over all chips (its --json report).
import json, re, sys

units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
checked = max(
    float(m.group(1)) * units[m.group(2)]
    for m in re.finditer(r"remark: stage \d+ .*?: ([0-9.]+) ([kMG]?B) of", open(sys.argv[1]).read()))
peak = max(chip["peak_hbm_bytes"] for chip in json.load(open(sys.argv[2]))["chips"])
# The remark rounds to 3 significant digits after the point.
if abs(peak - checked) <= 0.01 * checked:
    print("simulated peak = checked")
else:
    print("simulated peak %.0f, checked %.0f" % (peak, checked))
