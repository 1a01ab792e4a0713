#!/usr/bin/env python3
"""Runs every PromQL expression of the rules and of the dashboard on a real Prometheus.

usage: check_expressions.py RULES DASHBOARD PROMETHEUS_PORT "METRICS THE DEALER EXPORTED"
Prints one problem per line and exits 1 if there is any; on success prints what it checked.
  rules:     each expression evaluates, names only exported metrics; each recording rule has data
  dashboard: importable as is (a datasource variable, no fixed datasource, unique ids, a grid
             of 24 columns); each target, with $job, $instance and $__rate_interval as
             Grafana fills them, returns data over the run; each variable's query finds values
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

import yaml

rules_file, dashboard_file, port, exported = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split())
api = f"http://127.0.0.1:{port}/api/v1"
problems = []


def get(path, **params):
    try:
        with urllib.request.urlopen(f"{api}/{path}?" + urllib.parse.urlencode(params, doseq=True), timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # a 400 is an expression Prometheus refused
        return {"status": "error", "error": e.read().decode()}
    except Exception as e:
        return {"status": "error", "error": str(e)}


def unexported(expr):
    names = set(re.findall(r"\b((?:bp|process)_[a-z_]+)", expr))
    return [n for n in names if n not in exported and re.sub(r"_(bucket|count|sum)$", "", n) not in exported]


# The rules.
rule_count, records = 0, []
for group in yaml.safe_load(open(rules_file))["groups"]:
    for rule in group["rules"]:
        expr, name = rule["expr"], rule.get("record") or rule.get("alert")
        rule_count += 1
        answer = get("query", query=expr)
        if answer.get("status") != "success":
            problems.append(f"rule {name}: {answer.get('error')}")
        problems += [f"rule {name}: the dealer exports no {m}" for m in unexported(expr)]
        if "record" in rule:
            records.append(name)
for name in records:
    if not get("query", query=name).get("data", {}).get("result"):
        problems.append(f"recording rule {name} produced no data")

# The dashboard.
dashboard = json.load(open(dashboard_file))
variables = {v["name"]: v for v in dashboard["templating"]["list"]}
if variables.get("datasource", {}).get("type") != "datasource" or variables["datasource"].get("query") != "prometheus":
    problems.append("dashboard: no datasource variable of type prometheus")
if "__inputs" in dashboard:
    problems.append("dashboard: __inputs would make an import ask for a mapping; use the datasource variable")
panels = dashboard["panels"]
ids = [p["id"] for p in panels]
if len(set(ids)) != len(ids):
    problems.append("dashboard: panel ids repeat")
cells = set()
end = time.time()
start = end - 120
target_count = 0
for panel in panels:
    title = panel["title"]
    g = panel["gridPos"]
    if g["x"] < 0 or g["x"] + g["w"] > 24:
        problems.append(f"panel {title}: outside the 24-column grid")
    mine = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
    if mine & cells:
        problems.append(f"panel {title}: overlaps another panel")
    cells |= mine
    if panel["type"] == "row":
        continue
    for holder in [panel] + panel.get("targets", []):
        if holder.get("datasource") != {"type": "prometheus", "uid": "${datasource}"}:
            problems.append(f"panel {title}: its datasource is not the variable")
    if not panel.get("targets"):
        problems.append(f"panel {title}: no query")
    for target in panel.get("targets", []):
        target_count += 1
        expr = target["expr"].replace("$__rate_interval", "1m").replace("$job", "bp-dealer").replace("$instance", ".*")
        problems += [f"panel {title}: the dealer exports no {m}" for m in unexported(expr)]
        answer = get("query_range", query=expr, start=start, end=end, step=2)
        if answer.get("status") != "success":
            problems.append(f"panel {title}: {answer.get('error')}")
        elif not any(s["values"] for s in answer["data"]["result"]):
            problems.append(f"panel {title}: no data for {target['legendFormat']!r}: {expr}")
for name in ("job", "instance"):
    match = re.fullmatch(r"label_values\((.*), (\w+)\)", variables[name]["definition"])
    selector = match.group(1).replace("$job", "bp-dealer")
    values = get(f"label/{match.group(2)}/values", **{"match[]": selector}).get("data") or []
    if not values:
        problems.append(f"variable {name}: {variables[name]['definition']} finds no values")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"{rule_count} rule expressions ({len(records)} recording rules with data) and {target_count} dashboard "
      f"queries in {len(panels)} panels return data; both variables find values")
