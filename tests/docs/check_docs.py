#!/usr/bin/env python3
"""The README and docs/ are checked as the code is (a CTest test):
  - README.md stays short (at most 250 lines) and every document it or docs/ links exists;
  - every repository path named in backticks exists (globs allowed);
  - every --flag of a bp, bp-party or bp-dealer command in a shell block is one the program's
    --help lists, so no example names an option that is gone;
  - docs/embedding.md shows the example programs the tests build, word for word;
  - a table row in SECURITY.md or docs/ that gives a bp-dealer flag's default gives the one
    `bp-dealer --help` prints (each default is stated once, in DealerConfig).
usage: check_docs.py SOURCE_DIR BP BP_PARTY BP_DEALER"""
import glob, os, re, subprocess, sys

root, programs = sys.argv[1], dict(zip(("bp", "bp-party", "bp-dealer"), sys.argv[2:5]))
documents = ["README.md", "SECURITY.md"] + sorted(glob.glob("docs/*.md", root_dir=root))
text = {d: open(os.path.join(root, d), encoding="utf-8").read() for d in documents}
errors = []

readme_lines = text["README.md"].count("\n")
if readme_lines > 250:
    errors.append(f"README.md has {readme_lines} lines (at most 250: the detail belongs in docs/)")

for doc, body in text.items():
    base = os.path.dirname(doc)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", body):
        if "://" not in target and not os.path.exists(os.path.join(root, base, target)):
            errors.append(f"{doc} links {target}, which does not exist")
    for path in set(re.findall(r"`((?:core|mpc|proto|server|client|bindings|tools|tests|deploy|docs)/[\w.*/-]+)`", body)):
        if not glob.glob(os.path.join(root, path.rstrip("/"))):
            errors.append(f"{doc} names `{path}`, which does not exist")

helps = {}
for name, binary in programs.items():
    run = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    helps[name] = run.stdout + run.stderr
for doc, body in text.items():
    for block in re.findall(r"```sh\n(.*?)```", body, re.S):
        for line in re.sub(r"\\\n", " ", block).splitlines():
            words = line.split("#")[0].split()
            if not words or os.path.basename(words[0]) not in programs:
                continue
            program = os.path.basename(words[0])
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", " ".join(words[1:])):
                if not re.search(re.escape(flag) + r"(?![a-z0-9-])", helps[program]):
                    errors.append(f"{doc}: `{program} ... {flag}`: {program} --help has no {flag}")

# Defaults: "--name  help; default X" in bp-dealer's --help, against every table whose header
# has a "default" column and whose row names the flag in its first cell.
defaults = dict(re.findall(r"^  --([a-z0-9-]+)  .*; default (.+)$", helps["bp-dealer"], re.M))
for doc, body in text.items():
    column = None
    for line in body.splitlines():
        if not line.startswith("|"):
            column = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if column is None:
            column = next((i for i, c in enumerate(cells) if c == "default"), -1)
            continue
        flag = re.fullmatch(r"`--([a-z0-9-]+)`", cells[0]) if cells else None
        if column < 0 or not flag or column >= len(cells) or flag.group(1) not in defaults:
            continue
        if cells[column] != defaults[flag.group(1)]:
            errors.append(f"{doc}: the table says --{flag.group(1)} defaults to {cells[column]}, "
                          f"bp-dealer --help says {defaults[flag.group(1)]}")

# Anchors named by the documents and the alert rules' runbook links are headings that exist.
def anchor(heading):
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")
anchors = {d: {anchor(h) for h in re.findall(r"^#+ (.*)$", body, re.M)} for d, body in text.items()}
referrers = dict(text)
for rules in glob.glob("deploy/prometheus/*.yml", root_dir=root):
    referrers[rules] = open(os.path.join(root, rules), encoding="utf-8").read()
for doc, body in referrers.items():
    for target, frag in re.findall(r"((?:docs/)?[\w-]+\.md)#([\w-]+)", body):
        path = os.path.normpath(os.path.join(os.path.dirname(doc) if doc.startswith("docs/") and not target.startswith("docs/") else "", target))
        if path in anchors and frag not in anchors[path]:
            errors.append(f"{doc} points to {target}#{frag}, which is no heading there")

for example in ("client/examples/join_and_prove.cpp", "client/examples/prove_balances.cpp",
                "client/examples/prove_solvency.cpp",
                "bindings/python/examples/party.py",
                "bindings/go/examples/party/main.go"):
    if open(os.path.join(root, example), encoding="utf-8").read().strip() not in text["docs/embedding.md"]:
        errors.append(f"docs/embedding.md does not show {example} as it is")

for e in errors:
    print("error:", e, file=sys.stderr)
if not errors:
    print(f"docs: {len(documents)} documents checked (README {readme_lines} lines; links, paths, flags, defaults, examples)")
sys.exit(1 if errors else 0)
