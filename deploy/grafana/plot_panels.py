#!/usr/bin/env python3
"""Plots the dashboard's main panels from a Prometheus, as Grafana would draw them.

Grafana is not packaged for Debian 12, so the picture in docs/operations.md is made by this
script from a real run's data, through the same expressions the dashboard holds (read from
bp-dealer.dashboard.json, so the picture cannot drift from the dashboard).

usage: plot_panels.py PROMETHEUS_URL OUT.png [--minutes M] [--job JOB] [--rate-interval 1m]
"""
import argparse
import json
import pathlib
import time
import urllib.parse
import urllib.request

MAIN_PANELS = [
    "Sessions per second by outcome",
    "Round latency",
    "Parties connected",
    "Refusals per second by reason",
    "Verification requests per second",
    "Record call latency",
    "CPU",
    "Memory",
]
DASHBOARD = pathlib.Path(__file__).with_name("bp-dealer.dashboard.json")


def concrete(expr, job, rate_interval):
    """The expression as Grafana sends it with one job and every replica selected."""
    return (expr.replace("$__rate_interval", rate_interval).replace("$job", job).replace("$instance", ".*"))


def query_range(url, expr, start, end, step):
    params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": step})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=30) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise SystemExit(f"Prometheus refused {expr}: {body.get('error')}")
    return body["data"]["result"]


def legend(template, labels):
    out = template
    for key, value in labels.items():
        out = out.replace("{{" + key + "}}", value)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("out")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--job", default="bp-dealer")
    parser.add_argument("--rate-interval", default="1m")
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = {p["title"]: p for p in json.loads(DASHBOARD.read_text())["panels"] if p["type"] != "row"}
    end = time.time()
    start = end - args.minutes * 60
    step = max(1, int(args.minutes * 60 / 300))
    columns = 2
    rows = (len(MAIN_PANELS) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(12, 2.6 * rows), sharex=True)
    for axis, title in zip(axes.flat, MAIN_PANELS):
        panel = panels[title]
        unit = panel["fieldConfig"]["defaults"].get("unit", "")
        for target in panel["targets"]:
            for series in query_range(args.url, concrete(target["expr"], args.job, args.rate_interval), start, end, step):
                points = [(float(t) - end, float(v)) for t, v in series["values"]]
                xs = [p[0] / 60 for p in points]
                scale = 1000 if unit == "s" else (1 / 2**20 if unit == "bytes" else 1)
                axis.plot(xs, [p[1] * scale for p in points], label=legend(target["legendFormat"], series["metric"]))
        axis.set_title(title, fontsize=10)
        axis.set_ylabel({"s": "ms", "bytes": "MiB", "reqps": "per s", "percentunit": "fraction"}.get(unit, ""), fontsize=8)
        axis.tick_params(labelsize=8)
        axis.grid(alpha=0.3)
        if axis.lines:
            axis.legend(fontsize=7, loc="upper left")
    for axis in axes[-1]:
        axis.set_xlabel("minutes before the end of the run", fontsize=8)
    figure.suptitle(f"bp-dealer dashboard, main panels (job {args.job})", fontsize=11)
    figure.tight_layout()
    figure.savefig(args.out, dpi=80)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
