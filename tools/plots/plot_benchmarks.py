#!/usr/bin/python3
# (Debian's interpreter, by path: python3-matplotlib is installed for it, and a python3 earlier
# on PATH, such as a pyenv shim, would not see it.)
"""Draws docs/performance.md's and docs/scale-out.md's figures from the benchmarks' own JSON lines.

usage: plot_benchmarks.py [--data DIR] [--out DIR] [--sweep FILE] [--reference FILE]
                          [--in-flight FILE] [--replicas FILE]

Inputs (JSON lines, a {"op": "machine"} line first; each defaults to DIR/NAME):
  bench-sweep.jsonl      bp bench --sweep --json: prove/verify of n = 64 against m per backend,
                         batch verification against the batch size
  reference.jsonl        the reference crate's figures from the same machine and sitting
                         (tools/plots/reference_to_json.py over bp-oracle's bench table); optional
  in-flight.jsonl        bp-netbench --sweep-in-flight --json: latency against sessions in flight
  replicas.jsonl         tools/netbench/scale-out-bench.sh's third argument: sessions/s against
                         dealer replicas behind nginx, per record backend
Writes four PNGs into --out. Fails, naming the file and the key, when an input lacks what a
figure reads: the test command runs this on the current output to keep the format honest."""
import argparse
import json
import pathlib
import sys


class FormatError(Exception):
    pass


def read_lines(path, required=True):
    if path is None or not path.exists():
        if required:
            raise FormatError(f"{path}: no such file")
        return None, []
    machine, rows = None, []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        if not text.startswith("{"):
            continue  # a table line or a note around the JSON
        try:
            row = json.loads(text)
        except json.JSONDecodeError as e:
            raise FormatError(f"{path}:{number}: not JSON ({e})")
        if row.get("op") == "machine":
            machine = row
        else:
            rows.append(row)
    if machine is None:
        raise FormatError(f"{path}: no machine line (op = machine, naming the CPU)")
    return machine, rows


def need(row, keys, path):
    for key in keys:
        if key not in row:
            raise FormatError(f"{path}: a row with op = {row.get('op')} lacks '{key}': {row}")


def rows_of(rows, op, keys, path):
    """The rows of one op, each checked for the keys its figure reads."""
    chosen = [row for row in rows if row.get("op") == op]
    for row in chosen:
        need(row, keys, path)
    return chosen


def save(plt, figure, path):
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def prove_verify_figure(plt, sweep_path, reference_path, out):
    machine, rows = read_lines(sweep_path)
    ref_machine, reference = read_lines(reference_path, required=False)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for axis, op in zip(axes, ("prove", "verify")):
        series = {}
        for row in rows_of(rows, op, ("n", "m", "backend", "median_us"), sweep_path):
            if row["n"] == 64:
                series.setdefault(row["backend"], []).append((row["m"], row["median_us"] / 1000))
        if not series:
            raise FormatError(f"{sweep_path}: no {op} rows of n = 64")
        for backend, points in sorted(series.items()):
            points.sort()
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"this project, {backend}")
        ref_series = {}
        for row in reference:
            if row.get("op") == op and row.get("n") == 64:
                need(row, ("m", "impl", "median_us"), reference_path)
                ref_series.setdefault(row["impl"], []).append((row["m"], row["median_us"] / 1000))
        for name, points in sorted(ref_series.items()):
            points.sort()
            axis.plot([p[0] for p in points], [p[1] for p in points], marker="s", linestyle="--", label=name)
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("m (64-bit values in one proof)")
        axis.set_ylabel("ms (median)")
        axis.set_title(f"{op}, n = 64")
        axis.grid(alpha=0.3, which="both")
        axis.legend(fontsize=8)
    note = f"CPU: {machine.get('cpu', 'unknown')}"
    if ref_machine and ref_machine.get("cpu") != machine.get("cpu"):
        note += f"; reference run on {ref_machine.get('cpu')}: do not compare"
    figure.suptitle(note, fontsize=9)
    save(plt, figure, out / "prove-verify-vs-m.png")


def batch_figure(plt, sweep_path, out):
    machine, rows = read_lines(sweep_path)
    points = [(row["batch"], row["median_us"] / row["batch"] / 1000, row["backend"])
              for row in rows_of(rows, "verify_batch", ("batch", "median_us", "m", "backend"), sweep_path)
              if row["m"] == 1 and row.get("threads", 1) == 1]
    if not points:
        raise FormatError(f"{sweep_path}: no verify_batch rows of m = 1 on one thread")
    points.sort()
    single = [r["median_us"] / 1000 for r in rows if r.get("op") == "verify" and r.get("m") == 1
              and r.get("n") == 64 and r.get("backend") == points[0][2]]
    figure, axis = plt.subplots(figsize=(6.5, 4))
    axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"batch, per proof ({points[0][2]})")
    if single:
        axis.axhline(single[0], color="gray", linestyle=":", label="one proof verified alone")
    axis.set_xscale("log", base=2)
    axis.set_ylim(bottom=0)
    axis.set_xlabel("proofs in the batch (n = 64, m = 1)")
    axis.set_ylabel("ms per proof (median)")
    axis.set_title(f"batch verification, one thread\nCPU: {machine.get('cpu', 'unknown')}", fontsize=9)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    save(plt, figure, out / "batch-per-proof.png")


def in_flight_figure(plt, path, out):
    machine, rows = read_lines(path)
    points = rows_of(rows, "in_flight", ("in_flight", "sessions_per_s", "p50_ms", "p99_ms", "bits", "parties"), path)
    if not points:
        raise FormatError(f"{path}: no in_flight rows")
    points.sort(key=lambda r: r["in_flight"])
    xs = [r["in_flight"] for r in points]
    figure, left = plt.subplots(figsize=(7, 4))
    left.plot(xs, [r["p50_ms"] for r in points], marker="o", label="p50 latency")
    left.plot(xs, [r["p99_ms"] for r in points], marker="o", label="p99 latency")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("sessions in flight")
    left.set_ylabel("session latency, ms")
    right = left.twinx()
    right.plot(xs, [r["sessions_per_s"] for r in points], color="black", marker="s", linestyle="--",
               label="sessions/s")
    right.set_ylabel("completed sessions/s")
    right.set_ylim(bottom=0)
    lines = left.get_legend_handles_labels(), right.get_legend_handles_labels()
    left.legend(lines[0][0] + lines[1][0], lines[0][1] + lines[1][1], fontsize=8, loc="upper left")
    left.grid(alpha=0.3, which="both")
    left.set_title(f"one dealer, sessions of n = {points[0]['bits']}, m = {points[0]['parties']}; "
                   f"parties on the same {machine.get('cores', '?')} cores\nCPU: {machine.get('cpu', 'unknown')}",
                   fontsize=9)
    save(plt, figure, out / "latency-vs-in-flight.png")


def replicas_figure(plt, path, out):
    machine, rows = read_lines(path)
    series = {}
    for row in rows_of(rows, "replicas", ("record", "replicas", "sessions_per_s", "p99_ms"), path):
        series.setdefault(row["record"], []).append((row["replicas"], row["sessions_per_s"]))
    if not series:
        raise FormatError(f"{path}: no replicas rows")
    figure, axis = plt.subplots(figsize=(6.5, 4))
    for record, points in sorted(series.items()):
        points.sort()
        axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"record: {record}")
    axis.set_xticks(sorted({p[0] for points in series.values() for p in points}))
    axis.set_ylim(bottom=0)
    axis.set_xlabel("dealer replicas behind nginx")
    axis.set_ylabel("completed sessions/s")
    axis.set_title(f"{machine.get('note', '')}\nCPU: {machine.get('cpu', 'unknown')}, {machine.get('cores', '?')} cores",
                   fontsize=8)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    save(plt, figure, out / "sessions-vs-replicas.png")


def main():
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=pathlib.Path, default=here.parent.parent / "docs" / "data")
    parser.add_argument("--out", type=pathlib.Path, default=here.parent.parent / "docs" / "images")
    parser.add_argument("--sweep", type=pathlib.Path)
    parser.add_argument("--reference", type=pathlib.Path)
    parser.add_argument("--in-flight", type=pathlib.Path)
    parser.add_argument("--replicas", type=pathlib.Path)
    args = parser.parse_args()
    sweep = args.sweep or args.data / "bench-sweep.jsonl"
    reference = args.reference or args.data / "reference.jsonl"
    in_flight = args.in_flight or args.data / "in-flight.jsonl"
    replicas = args.replicas or args.data / "replicas.jsonl"

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    args.out.mkdir(parents=True, exist_ok=True)
    try:
        prove_verify_figure(plt, sweep, reference, args.out)
        batch_figure(plt, sweep, args.out)
        in_flight_figure(plt, in_flight, args.out)
        replicas_figure(plt, replicas, args.out)
    except FormatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for name in ("prove-verify-vs-m", "batch-per-proof", "latency-vs-in-flight", "sessions-vs-replicas"):
        print(f"wrote {args.out / (name + '.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
