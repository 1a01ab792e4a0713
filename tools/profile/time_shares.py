#!/usr/bin/env python3
"""Share of CPU time per step, from `perf script` output of a `perf record --call-graph dwarf`.

Each sample is charged to the first of the profile's steps that one of its frames (below
the profile's root) names, and separately to the first kind of work (multiscalar
multiplication, decoding, transcript, ...) that one names: both lists are in priority
order, innermost work first. Samples outside the root are not counted. The profiles are those of docs/performance.md's "Where the time goes":

  perf record -F 499 --call-graph dwarf,16384 -o prove.data -- bp bench --repeat prove --m 1 --seconds 10
  perf script -i prove.data | tools/profile/time_shares.py prove

  dealer: perf record ... -p $(pidof bp-dealer) while `bp-netbench --target ws://...` loads it
"""
import re
import sys
from collections import Counter

KINDS = [
    ("multiscalar multiplication", r"multiscalar|straus|pippenger|msm_|generator_sum_is_identity|ShiftedBaseTable|bucket"),
    ("point decoding", r"decompress"),
    ("point encoding", r"RistrettoPoint::compress|compress_batch|double_and_compress"),
    ("transcript (Keccak, challenges)", r"Transcript|keccak|strobe|challenge_scalar|append_"),
    ("scalar arithmetic", r"Scalar|mont_mul|barrett|batch_invert|inner_product\b|fold_witness|scalar_"),
    ("randomness", r"randombytes|SystemRandom|chacha"),
    ("signatures (Ed25519)", r"crypto_sign|ed25519"),
    ("protobuf and WebSocket frames", r"google::protobuf|wire::encode|wire::decode|websocket|beast::"),
    ("TLS", r"\bSSL|ssl3|tls1|EVP_|aesni|chacha20_poly"),
    ("memory allocation", r"malloc|free\b|_int_free|operator new|operator delete|memcpy|memmove|memset"),
    ("kernel", r"\[kernel|entry_SYSCALL|do_syscall"),
]

PROFILES = {
    "prove": (r"RangeProof::prove_multiple", [
        ("bit commitments A, S, V", r"party_commit_bits"),
        ("bit challenges y, z", r"dealer_bit_challenge"),
        ("polynomial t(x), commitments T1, T2", r"party_commit_poly"),
        ("poly challenge x", r"dealer_poly_challenge"),
        ("shares l(x), r(x), t_x", r"party_create_share|party_share|ProofShare"),
        # The folded generators' rounds first: they also run inside unfolded_rounds.
        ("inner product: rounds on the folded generators", r"materialised_commitment"),
        ("inner product: unfolded rounds' L, R", r"commitments_through|unfolded_rounds"),
        ("inner product: folding the generators once, and the rest", r"InnerProductProof::create"),
        ("t_x, blindings, challenge w", r"dealer_assemble"),
    ]),
    "verify": (r"RangeProof::verify_multiple", [
        ("transcript and challenges", r"equation_challenges|verification_challenges|validate_and_append|challenge_scalar|append_point|Transcript"),
        ("point decoding", r"decompress"),
        ("multiscalar multiplication", r"multiscalar|straus|pippenger|generator_sum_is_identity"),
        ("scalars of the equation", r"verification_equation|equation_from_challenges|delta|Scalar"),
    ]),
    "batch": (r"verify_batch", [
        ("equations: transcript and challenges", r"equation_challenges|verification_challenges|validate_and_append|challenge_scalar|append_point|Transcript"),
        ("equations: point decoding", r"decompress"),
        ("equations: scalars", r"verification_equation|equation_from_challenges|batch_invert|Scalar::random"),
        ("the combined multiscalar multiplication", r"multiscalar|straus|pippenger|generator_sum_is_identity"),
        ("summing the generators' scalars", r"combined_holds"),
    ]),
    "dealer": (r".", [
        # The folded generators' rounds first: they also run inside unfolded_rounds.
        ("inner product: rounds on the folded generators", r"materialised_commitment"),
        ("inner product: unfolded rounds' L, R", r"commitments_through|unfolded_rounds"),
        ("inner product: folding the generators once, and the rest", r"InnerProductProof::create"),
        ("share audit", r"audit_share"),
        ("final verification (alone, or batched with other sessions')", r"RangeProof::verify_multiple|bp::verify_batch|DealerCheckingProof"),
        ("assembling t_x, blindings, w", r"dealer_assemble"),
        ("bit and poly challenges", r"dealer_bit_challenge|dealer_poly_challenge|receive_bit_commitments|receive_poly_commitments"),
        ("decoding frames and their points", r"wire::decode|wire::detail"),
        ("signing the result", r"sign_result|SignedResult|crypto_sign"),
        ("the outcome record", r"RecordService|RecordStore|record_then|sqlite|PQ"),
        ("WebSocket, HTTP and the event loop", r"WsConnection|HttpConnection|beast::|asio::"),
        ("kernel", r"\[kernel|entry_SYSCALL|do_syscall"),
    ]),
}


def samples(stream):
    stack = []
    for line in stream:
        if not line.strip():
            if stack:
                yield stack
            stack = []
        elif line.startswith((" ", "\t")):
            parts = line.strip().split(" ", 1)
            stack.append(parts[1] if len(parts) > 1 else parts[0])
    if stack:
        yield stack


def first_match(frames, table):
    """The first entry of the table (they are in priority order) that names a frame."""
    for name, pattern in table:
        if any(re.search(pattern, frame) for frame in frames):
            return name
    return None


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in PROFILES:
        sys.exit(f"usage: perf script -i DATA | {sys.argv[0]} {'|'.join(PROFILES)}")
    root, steps = PROFILES[sys.argv[1]]
    by_step, by_kind, total = Counter(), Counter(), 0
    for stack in samples(sys.stdin):
        frames = list(reversed(stack))  # perf prints the leaf first
        at = next((i for i, f in enumerate(frames) if re.search(root, f)), None)
        if at is None:
            continue
        below = frames[at + (0 if root == "." else 1):]
        total += 1
        by_step[first_match(below, steps) or "other"] += 1
        by_kind[first_match(below, KINDS) or "field and point arithmetic outside the above"] += 1
    if total == 0:
        sys.exit(f"no sample under {root}")
    for title, counts in ((f"step ({sys.argv[1]}, {total} samples)", by_step), ("kind of work", by_kind)):
        print(f"| {title} | share |\n|---|---:|")
        for name, n in counts.most_common():
            print(f"| {name} | {100 * n / total:.1f}% |")
        print()


if __name__ == "__main__":
    main()
