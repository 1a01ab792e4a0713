"""Fixtures: a real bp-dealer on loopback (keys, TLS when asked), the reference vectors."""
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import bp_aggregation as bp

BUILD = Path(os.environ.get("BP_BUILD_DIR", Path(__file__).resolve().parents[3] / "build" / "gcc"))
DEALER = Path(os.environ.get("BP_DEALER_BIN", BUILD / "server" / "bp-dealer"))
CLI = Path(os.environ.get("BP_CLI_BIN", BUILD / "tools" / "bp"))
VECTORS = Path(os.environ.get("BP_VECTORS_DIR", Path(__file__).resolve().parents[3] / "tests" / "vectors"))


class Dealer:
    def __init__(self, workdir: Path, tls: bool = False):
        self.dir = workdir
        self.operator = bp.Key.generate()
        self.operator.save(workdir / "operator.key")
        self.key = bp.Key.generate()
        self.key.save(workdir / "dealer.key")
        self.parties = [bp.Key.generate() for _ in range(4)]
        args = [str(DEALER), "--listen", "127.0.0.1:0", "--operator-key", str(workdir / "operator.key.pub"),
                "--dealer-key", str(workdir / "dealer.key"), "--threads", "2"]
        scheme = "ws"
        if tls:
            self.ca = make_certificate(workdir)
            args += ["--tls-cert", str(workdir / "dealer.crt"), "--tls-key", str(workdir / "dealer.tls.key")]
            scheme = "wss"
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(workdir / "dealer.log", "w"),
                                        text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on"):
            raise RuntimeError("bp-dealer did not start: " + (workdir / "dealer.log").read_text())
        host = "localhost" if tls else "127.0.0.1"
        self.url = f"{scheme}://{host}:{line.strip().rsplit(':', 1)[1]}"

    def create_session(self, parties=4, round_timeout_ms=0, **options):
        options.setdefault("identity", self.operator)
        options.setdefault("dealer_key", self.key.public_key)
        return bp.create_session(self.url, bits=64, parties=parties, label="python test",
                                 round_timeout_ms=round_timeout_ms,
                                 allowed_parties=[k.public_key for k in self.parties[:parties]], **options)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def make_certificate(workdir: Path) -> Path:
    """A throwaway CA and a certificate for localhost, signed by it (openssl)."""
    def run(*args):
        subprocess.run(args, cwd=workdir, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "dealer.tls.key",
        "-out", "dealer.csr")
    (workdir / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "dealer.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "1", "-extfile", "san.ext", "-out", "dealer.crt")
    return workdir / "ca.crt"


@pytest.fixture
def dealer():
    with tempfile.TemporaryDirectory() as d:
        dealer = Dealer(Path(d))
        yield dealer
        dealer.stop()


@pytest.fixture
def tls_dealer():
    with tempfile.TemporaryDirectory() as d:
        dealer = Dealer(Path(d), tls=True)
        yield dealer
        dealer.stop()


@pytest.fixture(scope="session")
def rangeproof_vectors():
    return json.loads((VECTORS / "rangeproofs.json").read_text())
