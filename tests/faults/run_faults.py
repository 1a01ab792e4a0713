#!/usr/bin/env python3
"""The fault-injection test: sessions under a nemesis, and a checker over what every party
got and what the record holds.

Three bp-dealer replicas behind nginx (rendered as the Ingress routes), each reaching a
PostgreSQL primary with a synchronous standby through its own TCP gate; a steady load of
sessions (m = 2..8, real bp-party processes, each logging its events; about a third of them
gadget sessions of range:8 and shuffle:2 seats; about a quarter quorum sessions, K = m/2,
with one or two culprits that never join or are killed mid-session, so that the dealer
goes on in successor sessions); and a nemesis that, in an order the seed fixes, SIGKILLs a
replica and restarts it, SIGSTOPs one past the takeover bound and resumes it, freezes one
with its database writes in flight past the takeover bound and resumes it (it must be
refused by the record: the fencing path), SIGTERMs one (a rolling restart), takes one out
of nginx's ring and puts it back, cuts one off from the database and reconnects it, and
last kills the database primary and promotes the standby. Then every session must have
ended; every completed one's parties must hold the same proof, which verifies, is signed,
and is the one in the record; every chain of successors must end in the record, its
remaining parties holding its end's proof; no id may have two outcomes; no party may have
answered two different challenges for one round of one session. It prints the share of
sessions completed under each fault and how each chain ended, and requires all of them
under every fault but the database's own failover.

    run_faults.py BUILD_DIR WORK_DIR [--seed N]
The caller (test_faults.sh) has started PostgreSQL: PG1_DIR, PG1_PORT, PG2_DIR, PG2_PORT.
"""
import argparse
import collections
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")

# The timing every replica and party runs with (docs/scale-out.md explains each).
HEARTBEAT_MS, TAKEOVER_AFTER_MS, REPLICA_TTL_S = 500, 2000, 30
DEALER_IDLE_MS = 4000          # the dealer pings every 2 s: under nginx's read timeout
NGINX_READ_TIMEOUT_S = 5       # a paused replica's upgrades pass to the next one this soon
ROUND_TIMEOUT_MS = 20000
PARTY_TIMEOUT_S = 120          # every party process ends within this, whatever happens
QUORUM_WINDOW_MS = 6000        # a quorum session's join window: its parties arrive within it
PATIENT_RECORD_TIMEOUT_MS = 20000  # the frozen replica's: its writes outlast the freeze


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(*cmd, **kw):
    return subprocess.run(["runuser", "-u", "postgres", "--", *cmd], **kw)


def log(msg):
    print(f"   {msg}", flush=True)


class Replica:
    def __init__(self, name, build, work, pg_ports, record_timeout_ms=2000):
        self.name, self.build, self.work = name, build, work
        self.record_timeout_ms = record_timeout_ms
        self.port = free_port()
        self.gate_ports = [free_port() for _ in pg_ports]
        self.gate = subprocess.Popen([sys.executable, str(ROOT / "tests/faults/tcp_gate.py"),
                                      *(f"{g}:{p}" for g, p in zip(self.gate_ports, pg_ports))],
                                     stdout=subprocess.PIPE, text=True)
        assert self.gate.stdout.readline().strip() == "gate open"
        self.proc = None

    def conninfo(self):
        hosts = ",".join(f"127.0.0.1:{g}" for g in self.gate_ports)
        return f"postgresql://bp@{hosts}/bp?target_session_attrs=read-write&connect_timeout=2"

    def start(self):
        out = open(self.work / f"{self.name}.out", "w")
        err = open(self.work / f"{self.name}.log", "a")
        self.proc = subprocess.Popen(
            [str(self.build / "server/bp-dealer"), "--listen", f"127.0.0.1:{self.port}", "--allow-anonymous",
             "--replica-name", self.name, "--record", self.conninfo(), "--record-password-file",
             str(self.work / "pgpass"), "--dealer-key", str(self.work / "dealer.key"),
             "--heartbeat-ms", str(HEARTBEAT_MS), "--takeover-after-ms", str(TAKEOVER_AFTER_MS),
             "--replica-ttl-s", str(REPLICA_TTL_S), "--idle-timeout-ms", str(DEALER_IDLE_MS),
             "--record-timeout-ms", str(self.record_timeout_ms), "--round-timeout-ms", str(ROUND_TIMEOUT_MS),
             "--reconnect-grace-ms", "8000", "--shutdown-grace-ms", "5000",
             "--max-connections-per-ip", "5000", "--max-connects-per-ip-per-s", "100000",
             "--max-sessions-per-ip", "5000", "--max-anonymous-sessions-per-ip", "5000"],
            stdout=out, stderr=err)
        for _ in range(200):
            if "listening" in (self.work / f"{self.name}.out").read_text():
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not start")

    def signal(self, sig):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def stop_all(self):
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait()
        self.gate.kill()


class Balancer:
    def __init__(self, work):
        self.dir = work / "nginx"
        self.port = free_port()
        self.proc = None

    def route_to(self, replicas):
        env = dict(os.environ, BP_PROXY_READ_TIMEOUT_S=str(NGINX_READ_TIMEOUT_S))
        subprocess.run([str(ROOT / "deploy/nginx/render-ingress-conf.sh"), str(self.dir / "nginx.conf"),
                        f"127.0.0.1:{self.port}", str(self.dir), *(f"127.0.0.1:{r.port}" for r in replicas)],
                       env=env, check=True)
        if self.proc is None:
            self.proc = subprocess.Popen(["nginx", "-c", str(self.dir / "nginx.conf"), "-e", str(self.dir / "error.log")])
            time.sleep(0.5)
        else:
            subprocess.run(["nginx", "-c", str(self.dir / "nginx.conf"), "-e", str(self.dir / "error.log"),
                            "-s", "reload"], check=True)

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()


class Load:
    """Sessions, a few at a time, each with real bp-party processes through the balancer."""

    def __init__(self, build, work, url, rng, slots=6):
        self.build, self.work, self.url, self.slots = build, work, url, slots
        self.rng = random.Random(rng.random())
        self.lock = threading.Lock()
        self.sessions = []       # dicts: id, m, start, end, parties
        self.refused_creates = 0
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(k,)) for k in range(slots)]

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join()

    def create(self, sid, m, dealer=None, gadgets=None, quorum=None):
        """True once the session exists (a create that lands on a failing replica is asked again)."""
        party = str(self.build / "client/bp-party")
        terms = ["--gadgets", ";".join(gadgets)] if gadgets else ["--bits", "8", "--parties", str(m)]
        if quorum:
            terms += ["--min-parties", str(quorum), "--join-window-ms", str(QUORUM_WINDOW_MS)]
        for _ in range(8):
            r = subprocess.run(["timeout", "20", party, "create-session", "--dealer", dealer or self.url, *terms,
                                "--session-id", sid, "--round-timeout-ms", str(ROUND_TIMEOUT_MS),
                                "--timeout-ms", "8000"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                return True
            time.sleep(0.5)
        return False

    def join_party(self, sid, position, value, gadget=None):
        """A range party of one 8-bit value, or a gadget party of `gadget` over the values in `value`."""
        events = self.work / "events" / f"{sid}.{position}.jsonl"
        statement = ["--gadget", gadget] if gadget else ["--bits", "8"]
        return events, subprocess.Popen(
            ["timeout", str(PARTY_TIMEOUT_S), str(self.build / "client/bp-party"), "join", *statement, "--dealer", self.url,
             "--session", sid, "--value", str(value), "--timeout-ms", str((PARTY_TIMEOUT_S - 10) * 1000),
             "--reconnect-give-up-ms", "60000", "--events", str(events)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def collect(self, sid, m, start, procs, tag=None, gadgets=None, culprits=None):
        parties = []
        for events, p in procs:
            if p is None:  # a culprit that never joined
                parties.append({"rc": None, "out": "", "err": "", "events": events})
                continue
            out, err = p.communicate()
            parties.append({"rc": p.returncode, "out": out.strip(), "err": err.strip()[-400:], "events": events})
        with self.lock:
            self.sessions.append({"id": sid, "m": m, "start": start, "end": time.monotonic(), "parties": parties,
                                  "tag": tag, "gadgets": gadgets, "culprits": culprits or {}})

    @staticmethod
    def misbehave(proc, kind):
        """A culprit of a quorum session: `frozen` stops once it has sent its join (it holds its
        seat, answers nothing, and is killed long after); `leaves` is killed then."""
        # `timeout` runs the party in a process group of its own, whose id is its pid.
        time.sleep(0.3)
        try:
            os.killpg(proc.pid, signal.SIGSTOP if kind == "frozen" else signal.SIGKILL)
            if kind == "frozen":
                time.sleep(30)
                os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it had ended already (refused at once)

    def run(self, slot):
        while not self.stop.is_set():
            with self.lock:
                m = self.rng.randint(2, 8)
                values = [self.rng.randrange(256) for _ in range(m)]
                # Parties arrive over a second or so: sessions wait in every phase, joining included.
                gaps = [self.rng.uniform(0, 0.8) for _ in range(m)]
                # A third are gadget sessions: each seat a range:8 of its value, or a shuffle:2 of
                # (value, value + 1) into the reverse order.
                gadgets = [self.rng.choice(["range:8", "shuffle:2"]) for _ in range(m)] \
                    if self.rng.random() < 0.35 else None
                # A quarter of the range sessions of four or more are quorum sessions, K = m/2,
                # with one or two culprits: churn, and successors that go on without them.
                quorum, culprits = None, {}
                if not gadgets and m >= 4 and self.rng.random() < 0.3:
                    quorum = m // 2
                    for j in self.rng.sample(range(m), self.rng.randint(1, min(2, m - quorum))):
                        culprits[j] = self.rng.choice(["absent", "frozen", "frozen", "leaves"])
            sid = secrets.token_hex(16)
            if not self.create(sid, m, gadgets=gadgets, quorum=quorum):
                with self.lock:
                    self.refused_creates += 1
                continue
            start = time.monotonic()
            procs = []
            for j, v in enumerate(values):
                time.sleep(gaps[j])
                if culprits.get(j) == "absent":
                    procs.append((self.work / "events" / f"{sid}.{j}.jsonl", None))
                elif gadgets and gadgets[j] == "shuffle:2":
                    procs.append(self.join_party(sid, j, f"{v},{v + 1},{v + 1},{v}", gadgets[j]))
                else:
                    procs.append(self.join_party(sid, j, v, gadgets[j] if gadgets else None))
                    if j in culprits:
                        threading.Thread(target=self.misbehave, args=(procs[-1][1], culprits[j])).start()
            self.collect(sid, m, start, procs, gadgets=gadgets, culprits=culprits)

    def probes(self, victim, db, count=2):
        """Sessions the balancer sends to `victim`, each with one party seated and the other on
        its way: the case a replica fault used to lose. Returns a function that sends the rest."""
        held = []
        # Until `count` land on the victim, or 20 s: after an earlier fault nginx may keep the
        # victim out of its ring for a while (fail_timeout), and a fault with no session held
        # there tests nothing (the fencing path needs the frozen replica's writes in flight).
        give_up = time.monotonic() + 20
        while len(held) < count and time.monotonic() < give_up:
            sid = secrets.token_hex(16)
            if not self.create(sid, 2):
                continue
            start = time.monotonic()
            first = self.join_party(sid, 0, 1)
            for _ in range(50):  # until it is seated where the balancer sent it
                row = db.sql(f"SELECT replica || ' ' || joined FROM bp_sessions WHERE id = '{sid}'").strip()
                if row.endswith(" 1"):
                    break
                time.sleep(0.1)
            if row.split(" ")[0] == victim.name:
                held.append((sid, start, first))
            else:  # the ring put it elsewhere: an ordinary session
                threading.Thread(target=self.collect, args=(sid, 2, start, [first, self.join_party(sid, 1, 2)])).start()
                time.sleep(0.25)
        log(f"{len(held)} of {count} probe sessions seated on {victim.name}")

        def send_the_rest(tag):
            threads = [threading.Thread(target=self.collect, args=(sid, 2, start, [first, self.join_party(sid, 1, 2)], tag))
                       for sid, start, first in held]
            for t in threads:
                t.start()
            return threads
        return send_the_rest


class Database:
    def __init__(self):
        self.dirs = [Path(os.environ["PG1_DIR"]), Path(os.environ["PG2_DIR"])]
        self.ports = [int(os.environ["PG1_PORT"]), int(os.environ["PG2_PORT"])]
        self.primary = 0

    def sql(self, query):
        d, p = self.dirs[self.primary], self.ports[self.primary]
        r = as_postgres(str(PG_BIN / "psql"), "-h", f"{d}.sock", "-p", str(p), "-U", "postgres", "-d", "bp",
                        "-Atqc", query, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return r.stdout

    def fail_over(self):
        pid = int((self.dirs[0] / "postmaster.pid").read_text().split()[0])
        subprocess.run(["pkill", "-9", "-P", str(pid)])
        os.kill(pid, signal.SIGKILL)
        time.sleep(2)
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.dirs[1]), "-w", "promote", stdout=subprocess.DEVNULL,
                    check=True)
        self.primary = 1


def nemesis(kind, victim, replicas, balancer, db, load):
    """Applies one fault and heals it (all but the failover); returns when healed. Before a
    replica fault, sessions with one party seated on the victim; their second parties come
    a second into the fault."""
    rest = load.probes(victim, db, 3 if kind == "stale" else 2) if victim else None
    threads = []
    if rest:
        threading.Timer(0.2 if kind == "stale" else 1.0, lambda: threads.extend(rest(kind))).start()
    if kind == "kill":
        victim.signal(signal.SIGKILL)
        victim.wait(10)
        time.sleep(3)
        victim.start()
    elif kind == "pause":
        victim.signal(signal.SIGSTOP)
        time.sleep(TAKEOVER_AFTER_MS / 1000 + 5)
        victim.signal(signal.SIGCONT)
    elif kind == "stale":
        # The replica's writes are held on their way to the database (its link frozen), and
        # it is paused with them in flight until its sessions are taken over elsewhere; then
        # both resume, and the record must refuse the writes (the epoch fences them). Its
        # probes' second parties join 0.2 s in, so that their seats' writes are among them.
        victim.gate.send_signal(signal.SIGSTOP)
        time.sleep(0.8)
        victim.signal(signal.SIGSTOP)
        # Long enough for its parties to reach another replica through nginx (its read
        # timeout, then its connect to the paused replica timing out), which takes them over.
        time.sleep(TAKEOVER_AFTER_MS / 1000 + 2 * NGINX_READ_TIMEOUT_S + 2)
        victim.gate.send_signal(signal.SIGCONT)
        time.sleep(0.3)
        victim.signal(signal.SIGCONT)
    elif kind == "term":
        victim.signal(signal.SIGTERM)
        victim.wait(15)
        time.sleep(1)
        victim.start()
    elif kind == "ring":
        balancer.route_to([r for r in replicas if r is not victim])
        time.sleep(6)
        balancer.route_to(replicas)
    elif kind == "cut":
        victim.gate.send_signal(signal.SIGUSR1)
        time.sleep(6)
        victim.gate.send_signal(signal.SIGUSR2)
    elif kind == "db_failover":
        db.fail_over()
        time.sleep(3)
    return threads


def check(load, windows, db, build, work, dealer_pub):
    failures = []

    def fail(what):
        failures.append(what)
        print(f"   FAIL: {what}", flush=True)

    sessions = load.sessions
    ids = [s["id"] for s in sessions]
    # Every session ended: each party process exited by itself (not at its timeout), and the
    # record closed every one (a session nobody finishes is closed after the TTL).
    hung = [s["id"] for s in sessions for p in s["parties"] if p["rc"] == 124]
    if hung:
        fail(f"{len(hung)} party processes ran into their {PARTY_TIMEOUT_S} s bound: {hung[:3]}")
    id_list = ",".join(f"'{i}'" for i in ids)
    deadline = time.monotonic() + REPLICA_TTL_S + 20
    while True:
        still_open = [l for l in db.sql(f"SELECT id FROM bp_sessions WHERE open AND id IN ({id_list})").split() if l]
        if not still_open or time.monotonic() > deadline:
            break
        time.sleep(1)
    if still_open:
        fail(f"{len(still_open)} sessions still open in the record: {still_open[:3]}")
    rows = {}
    for line in db.sql(f"SELECT id, json FROM bp_sessions WHERE id IN ({id_list})").splitlines():
        sid, _, text = line.partition("|")
        rows.setdefault(sid, []).append(json.loads(text))
    if any(len(v) != 1 for v in rows.values()) or len(rows) != len(ids):
        fail("an id has other than one record")
    completed = set()
    chains = []
    for s in sessions:
        record = (rows.get(s["id"]) or [{}])[0]
        results = [json.loads(p["out"]) if p["rc"] == 0 and p["out"] else None for p in s["parties"]]
        got = [r for r in results if r]
        if s["culprits"]:
            chain = check_chain(s, record, results, db, build, dealer_pub, fail)
            chains.append((s, chain))
            if chain[-1][1].get("status") == "completed":
                completed.add(s["id"])
            continue
        if record.get("status") == "completed":
            proofs = {(r["proof"], tuple(r["commitments"]), r["dealer_signature"]) for r in got}
            if len(got) != s["m"]:
                fail(f"session {s['id']} completed in the record, but {s['m'] - len(got)} of its parties have no proof "
                     f"({[p['err'][-120:] for p, r in zip(s['parties'], results) if not r][:1]})")
            if len(proofs) > 1 or (got and got[0]["proof"] != record.get("proof")):
                fail(f"session {s['id']}: its parties' proofs differ, or differ from the record's")
            if got:
                r = got[0]
                statement = ["r1cs", "verify", "--gadgets", r["gadgets"]] if s.get("gadgets") else \
                    ["verify", "--bits", str(r["bits"])]
                if s.get("gadgets") and r["gadgets"] != ";".join(s["gadgets"]):
                    fail(f"session {s['id']}: its result is over {r['gadgets']}, not the list it was opened with")
                v = subprocess.run([str(build / "tools/bp"), *statement, "--commitments",
                                    ",".join(r["commitments"]), "--proof", r["proof"], "--label", r["label"],
                                    "--session", s["id"], "--dealer-key", str(dealer_pub), "--signature",
                                    r["dealer_signature"]], capture_output=True, text=True)
                if v.stdout.strip() != "ok":
                    fail(f"session {s['id']}: bp verify says {v.stdout.strip()} {v.stderr.strip()}")
            completed.add(s["id"])
        else:
            if got:
                fail(f"session {s['id']} handed out a proof the record does not hold (record: {record.get('status')})")
            if any(p["rc"] == 0 or not p["err"] for p in s["parties"]):
                fail(f"session {s['id']} ended without a proof and without a reason for some party")
    # No party answered two different challenges for one round of one session; all parties
    # of a session answered the same challenge in each round. A party that follows a chain
    # is seated afresh in each session of it ("joined"): its k-th seat is in the chain's
    # k-th session, as every other follower's is.
    twice = 0
    for s in sessions:
        per_round = collections.defaultdict(set)
        for p in s["parties"]:
            mine = collections.defaultdict(set)
            path = Path(p["events"])
            seat = 0
            for line in (path.read_text().splitlines() if path.exists() else []):
                e = json.loads(line)
                if e["event"] == "joined":
                    seat += 1
                if e["event"] in ("answered", "replayed"):
                    mine[(seat, e["round"])].add(e["challenge"])
                    per_round[(seat, e["round"])].add(e["challenge"])
            twice += any(len(c) > 1 for c in mine.values())
        if any(len(c) > 1 for c in per_round.values()):
            fail(f"session {s['id']}: its parties answered different challenges in one round")
    if twice:
        fail(f"{twice} parties answered two different challenges for one round")
    report_chains(chains)

    # What a takeover costs a party: from its connection lost to its seat held again (on the
    # replica that took the session over), by the fault it fell in.
    outages = collections.defaultdict(list)
    wall_to_mono = time.time() - time.monotonic()
    for s in sessions:
        if s["culprits"]:
            continue  # its parties also wait for their culprits' deadlines: not a takeover's cost
        for p in s["parties"]:
            path = Path(p["events"])
            lost_at = None
            for line in (path.read_text().splitlines() if path.exists() else []):
                e = json.loads(line)
                t = e["time_ms"] / 1000 - wall_to_mono
                if e["event"] == "reconnecting" and lost_at is None:
                    lost_at = t
                elif e["event"] in ("resumed", "joined", "done") and lost_at is not None:
                    kind = next((k for k, b, en in windows if b <= lost_at <= en), "none")
                    outages[kind].append(t - lost_at)
                    lost_at = None
    print("   | fault | party outages | p50 s | p99 s | max s |", flush=True)
    print("   |---|---:|---:|---:|---:|", flush=True)
    for kind, spans in sorted(outages.items()):
        spans.sort()
        pick = lambda q: spans[min(len(spans) - 1, int(q * len(spans)))]
        print(f"   | {kind} | {len(spans)} | {pick(0.5):.2f} | {pick(0.99):.2f} | {spans[-1]:.2f} |", flush=True)

    # The share completed under each fault (a session is under a fault when it ran while the
    # fault was applied or healing), and none lost to any single replica fault.
    probes = [s for s in sessions if s.get("tag")]
    done_probes = sum(s["id"] in completed for s in probes)
    print(f"   sessions caught on a faulty replica with one party seated and the other joining during the fault: "
          f"{done_probes} of {len(probes)} completed", flush=True)
    for s in probes:
        if s["id"] not in completed:
            fail(f"session {s['id']} ({s['tag']} of its replica, one party seated) did not complete: "
                 f"{s['parties'][0]['err'][-160:]}")
    print("   | fault | sessions | completed | aborted |", flush=True)
    print("   |---|---:|---:|---:|", flush=True)
    for kind, begin, end in windows + [("none", None, None)]:
        if kind == "none":
            under = [s for s in sessions if not any(s["start"] < e and s["end"] > b for _, b, e in windows)]
        else:
            under = [s for s in sessions if s["start"] < end and s["end"] > begin]
        done = sum(s["id"] in completed for s in under)
        print(f"   | {kind} | {len(under)} | {done} | {len(under) - done} |", flush=True)
        if kind != "db_failover":
            lost = [s for s in under if s["id"] not in completed and not in_window(s, windows, "db_failover")]
            if lost:
                fail(f"{len(lost)} sessions under '{kind}' did not complete: "
                     f"{[(s['id'], s['parties'][0]['err'][-160:]) for s in lost[:2]]}")
    return failures


def chain_of(db, head, head_record):
    """The record's sessions of a chain, head first: each outcome names its successor."""
    chain = [(head, head_record)]
    while chain[-1][1].get("successor") and len(chain) <= 16:
        sid = chain[-1][1]["successor"]
        deadline = time.monotonic() + REPLICA_TTL_S + 20
        while True:  # a successor nobody finishes is closed after the TTL, like any session
            rows = [l.split("|", 2) for l in db.sql(f"SELECT id, open, json FROM bp_sessions WHERE id = '{sid}'")
                    .splitlines()]
            if len(rows) != 1 or rows[0][1] != "t" or time.monotonic() > deadline:
                break
            time.sleep(1)
        if len(rows) != 1 or rows[0][1] == "t":
            chain.append((sid, {"status": f"{len(rows)} records" if len(rows) != 1 else "still open"}))
            break
        chain.append((sid, json.loads(rows[0][2])))
    return chain


def check_chain(s, head_record, results, db, build, dealer_pub, fail):
    """A quorum session and its successors: the chain ends in the record, with a proof every
    remaining party holds (a party the dealer excluded says so), or without one that any
    party holds. Culprits are owed nothing. Returns the chain."""
    chain = chain_of(db, s["id"], head_record)
    end_id, end = chain[-1]
    if len(chain) > 1 + s["m"] - s["m"] // 2:
        fail(f"session {s['id']}: a chain of {len(chain)} sessions, more than its N - K + 1")
    for (sid, rec), (nxt, _) in zip(chain, chain[1:]):
        if rec.get("status") != "aborted":
            fail(f"session {sid} names a successor {nxt} but is {rec.get('status')}")
    honest = [(j, r, p) for j, (r, p) in enumerate(zip(results, s["parties"])) if j not in s["culprits"]]
    for j, r, p in honest:
        if r is None:
            if not p["err"]:
                fail(f"session {s['id']}: party {j} ended without a proof and without a reason")
            elif end.get("status") == "completed" and "excluded" not in p["err"]:
                fail(f"session {s['id']}: its chain ended with a proof, but party {j} was neither given it nor "
                     f"told it was excluded: {p['err'][-160:]}")
            continue
        if end.get("status") != "completed":
            fail(f"session {s['id']}: party {j} holds a proof, but its chain ended {end.get('status')} in the record")
            continue
        if r.get("session") != end_id or r["proof"] != end.get("proof") or r.get("chain", []) != [c for c, _ in chain[:-1]]:
            fail(f"session {s['id']}: party {j}'s proof is not its chain's end's ({r.get('session')} vs {end_id})")
            continue
        v = subprocess.run([str(build / "tools/bp"), "verify", "--bits", str(r["bits"]), "--commitments",
                            ",".join(r["commitments"]), "--proof", r["proof"], "--label", r["label"], "--session",
                            end_id, "--dealer-key", str(dealer_pub), "--signature", r["dealer_signature"]],
                           capture_output=True, text=True)
        if v.stdout.strip() != "ok":
            fail(f"session {s['id']}: the proof of its chain's end {end_id}: bp verify says {v.stdout.strip()}")
    return chain


def report_chains(chains):
    """How every chain ended, by its length (successors made)."""
    print("   | quorum sessions: successors | chains | ended with a proof | without | parties excluded |",
          flush=True)
    print("   |---:|---:|---:|---:|---:|", flush=True)
    by_length = collections.defaultdict(list)
    for s, chain in chains:
        by_length[len(chain) - 1].append((s, chain))
    for n, group in sorted(by_length.items()):
        ended = sum(c[-1][1].get("status") == "completed" for _, c in group)
        excluded = sum(len(rec.get("blamed", [])) for _, c in group for _, rec in c[:-1])
        print(f"   | {n} | {len(group)} | {ended} | {len(group) - ended} | {excluded} |", flush=True)
    for s, c in chains:
        if c[-1][1].get("status") != "completed":
            print(f"   chain {s['id']} ended at {c[-1][0]}: {c[-1][1].get('reason', c[-1][1].get('status'))}", flush=True)


def in_window(s, windows, kind):
    return any(k == kind and s["start"] < e and s["end"] > b for k, b, e in windows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    rng = random.Random(seed)
    build, work = args.build.resolve(), args.work.resolve()
    (work / "events").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    subprocess.run([str(build / "client/bp-party"), "keygen", "--out", str(work / "dealer.key")],
                   check=True, stdout=subprocess.DEVNULL)
    db = Database()
    kinds = ["kill", "pause", "stale", "term", "ring", "cut"]
    rng.shuffle(kinds)
    victims = [rng.randrange(3) for _ in kinds]
    # The replica frozen with its writes in flight waits for them longer than the freeze.
    patient = victims[kinds.index("stale")]
    replicas = [Replica(f"dealer-{k + 1}", build, work, db.ports,
                        PATIENT_RECORD_TIMEOUT_MS if k == patient else 2000) for k in range(3)]
    for r in replicas:
        r.start()
    balancer = Balancer(work)
    balancer.route_to(replicas)
    schedule = [(k, replicas[v]) for k, v in zip(kinds, victims)] + [("db_failover", None)]
    print(f"   seed {seed}; schedule: " + ", ".join(f"{k}{'(' + v.name + ')' if v else ''}" for k, v in schedule),
          flush=True)
    load = Load(build, work, f"ws://127.0.0.1:{balancer.port}", rng)
    windows = []
    probe_threads = []
    try:
        load.start()
        time.sleep(4)
        for kind, victim in schedule:
            begin = time.monotonic()
            probe_threads += nemesis(kind, victim, replicas, balancer, db, load)
            windows.append((kind, begin, time.monotonic() + 2))  # two seconds of settling count as the fault's
            log(f"{kind}{' of ' + victim.name if victim else ''}: {time.monotonic() - begin:.1f} s")
            time.sleep(4)
        load.finish()
        for t in probe_threads:
            t.join()
        log(f"{len(load.sessions)} sessions ({sum(1 for s in load.sessions if s.get('gadgets'))} of them gadget "
            f"sessions) in {time.monotonic() - started:.0f} s; "
            f"{load.refused_creates} creates refused eight times over")
        failures = check(load, windows, db, build, work, work / "dealer.key.pub")
        logs = "".join((work / f"{r.name}.log").read_text() for r in replicas)
        fenced = logs.count("the record refused a write")
        log(f"takeovers: {logs.count('session taken over')}; writes the record refused (fenced): {fenced}; "
            f"sessions sent on from a replica: {logs.count('session moves on')} (of them after a refused write: "
            f"{logs.count('no longer holds session')}, told by the record: "
            f"{logs.count('gives this session to another replica')}, "
            f"handed over: {logs.count('handing it over') + logs.count('this dealer replica is shutting down')}); "
            f"successor sessions started: {logs.count('starting a successor session')}")
        if fenced == 0:
            failures.append("the replica frozen with its writes in flight was never refused by the record (fenced: 0)")
            print("   FAIL: the fencing path was not reached", flush=True)
    finally:
        load.stop.set()
        for r in replicas:
            r.stop_all()
        balancer.stop()
    print(f"   {time.monotonic() - started:.0f} s in all; seed {seed}", flush=True)
    print(f"faults: {'passed' if not failures else str(len(failures)) + ' failures'}", flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
