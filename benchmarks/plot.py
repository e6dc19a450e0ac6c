"""Plot the ratio table: ``python -m benchmarks.plot RESULTS.json OUT.png`` (needs matplotlib).

pip install -e ".[bench]"     # without it: an ImportError saying so
python -m benchmarks --json results.json && python -m benchmarks.plot results.json docs/images/benchmarks.png
"""

from __future__ import annotations

import json
import sys

from runtime.extras import require


def plot(results, out):
    matplotlib = require("matplotlib", "bench", "Plotting the benchmarks")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["workloads"]
    names = [r["workload"] for r in rows]
    graph = [r["graph_ratio"] for r in rows]
    eager = [r["eager_ratio"] for r in rows]
    fig, ax = plt.subplots(figsize=(9.5, 3.6))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], graph, height=0.4, label="graph")
    ax.barh([i - 0.2 for i in y], eager, height=0.4, label="eager")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(1.5, color="gray", linestyle="--", linewidth=0.8, label="graph goal (1.5x)")
    ax.set_xscale("log")
    ax.set_yticks(list(y), names)
    ax.set_xlabel("time relative to hand-written numpy (log scale; 1 = same speed)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    with open(argv[0]) as f:
        results = json.load(f)
    try:
        plot(results, argv[1])
    except ImportError as e:
        print(f"python -m benchmarks.plot: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
