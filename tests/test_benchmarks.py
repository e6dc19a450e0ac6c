"""``python -m benchmarks`` shows its rows as it times them, labels each number with its unit,
and ``benchmarks.plot`` without matplotlib says what to install."""

import json
import sys

import numpy as np

import benchmarks.__main__ as bench
from benchmarks import plot


def test_each_row_is_shown_as_soon_as_it_is_timed(monkeypatch, capsys):
    events = []
    double = (lambda x: x * 2, lambda x: x * 2, (np.float32(2),), (np.float32(2),))
    monkeypatch.setattr(bench.workloads, "workloads", lambda: {"double": double, "triple": double})
    monkeypatch.setattr(bench.workloads, "graph_version", lambda fn: fn)
    monkeypatch.setattr(bench.workloads, "eager_version", lambda fn: fn)
    rounds = [[1e-6, 1e-6], [2e-6, 2e-6], [3e-6, 3e-6]]  # numpy, graph, eager: no spread
    monkeypatch.setattr(bench, "round_times", lambda candidates, seconds: rounds)

    def later(name, value):
        def timed(*args, **kwargs):
            events.append(name)
            return value

        return timed

    monkeypatch.setattr(bench.keras, "step_workload", lambda: [])
    monkeypatch.setattr(bench.keras, "fit_overhead_per_batch", later("fit overhead", 1e-4))
    monkeypatch.setattr(bench.first_call, "first_call_seconds", later("first call", 0.0025))
    monkeypatch.setattr(bench.conversion, "time_conversion", later("conversion", 0.5))
    monkeypatch.setattr(bench.conversion, "load", lambda source: None)
    monkeypatch.setattr(bench.scale, "run", later("scale", None))
    rows, singles, _ = bench.run(quick=True, on_row=lambda r: events.append(r["workload"]))
    keras_step = "seed MLP training step (SGD)"
    assert events == [
        "double",
        "triple",
        keras_step,
        "fit overhead",
        "first call",
        "conversion",
        "scale",
    ]
    assert [r["graph_ratio"] for r in rows] == [2.0, 2.0, 2.0]
    bench.print_row(rows[0])
    assert capsys.readouterr().out.split() == [
        "double",
        "1.0us",
        "2.0us",
        "3.0us",
        "2.00x",
        "3.00x",
        "0%",
    ]


def test_single_timings_are_labelled_in_the_unit_they_are_printed_in(monkeypatch, capsys):
    monkeypatch.setattr(bench.scale, "print_results", lambda results: None)
    bench.print_rest({"first call of a small function (s)": 0.0025}, None)
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert line.split() == ["first", "call", "of", "a", "small", "function", "2.50", "ms"]
    bench.print_rest({"fit overhead per batch, beyond the step (s)": 4e-5}, None)
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert line.split()[-3:] == ["step", "40.0", "us"]


def test_plot_without_matplotlib_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"workloads": []}))
    assert plot.main([str(results), str(tmp_path / "plot.png")]) == 1
    error = capsys.readouterr().err
    assert 'needs the matplotlib package: pip install "autograph-numpy[bench]"' in error
    assert not (tmp_path / "plot.png").exists()


def test_compare_takes_the_median_of_each_side_and_marks_what_got_slower():
    from benchmarks.compare import compare

    def results(graph, eager, xla):
        return {
            "workloads": [{"workload": "w", "graph_ratio": graph, "eager_ratio": eager}],
            "xla": [{"workload": "w", "ratio": xla, "first_call_ratio": 1.0}],
        }

    before = [results(1.0, 2.0, 1.0), results(1.2, 2.0, 9.0), results(1.1, 2.0, 1.0)]
    after = [results(1.1, 2.2, 1.0), results(1.1, 2.08, 1.0), results(5.0, 2.08, 1.0)]
    rows = {
        (section, column): tuple(row) for section, _, column, *row in compare(before, after, 0.05)
    }
    assert rows[("workloads", "graph_ratio")] == (1.1, 1.1, 0.0, False)
    old, new, change, slower = rows[("workloads", "eager_ratio")]
    assert (old, new, slower) == (2.0, 2.08, False) and abs(change - 0.04) < 1e-12
    assert rows[("xla", "ratio")] == (1.0, 1.0, 0.0, False)
    assert rows[("xla", "first_call_ratio")][3] is False
    slower_after = [results(1.0, 2.0, 1.0)], [results(1.2, 2.0, 1.0)]
    (graph_row, *_) = compare(*slower_after, 0.05)
    assert graph_row[2] == "graph_ratio" and graph_row[-1] is True
    new_workload = [{"workloads": [{"workload": "new", "graph_ratio": 1.0, "eager_ratio": 1.0}]}]
    one_sided = [row for row in compare(before, new_workload, 0.05) if row[1] == "new"]
    assert one_sided and all(row[3] is None and row[5] is None for row in one_sided)


def test_compare_reads_the_single_timings_and_the_time_per_op():
    from benchmarks.compare import compare

    def results(first_call, per_add):
        return {
            "single": {"first call of a small function (s)": first_call},
            "scale": {"trace_compile": [[1000, per_add * 1000, 1002]]},
        }

    rows = compare([results(0.004, 20e-6)], [results(0.004, 22e-6)], 0.05)
    by_name = {row[1]: row for row in rows}
    assert by_name["first call of a small function"][5] == 0.0
    per_add = by_name["trace + compile, 1000 adds"]
    assert abs(per_add[5] - 0.1) < 1e-9 and per_add[6] is True
