"""Proofs through the C ABI from Python, checked against the reference implementation's vectors."""
import threading

import pytest

import bp_aggregation as bp


def test_reference_proofs_verify_and_commitments_match(rangeproof_vectors):
    for case in rangeproof_vectors["cases"]:
        commitments = [bytes.fromhex(c) for c in case["commitments"]]
        proof = bytes.fromhex(case["proof"])
        bp.verify(proof, commitments, bits=case["n"], label=case["transcript_label"])
        # Our own proof of the same witness commits to the same points.
        values = [int(v) for v in case["values"]]
        blindings = [bytes.fromhex(b) for b in case["blindings"]]
        ours, our_commitments = bp.prove(values, blindings, bits=case["n"], label=case["transcript_label"])
        assert our_commitments == commitments
        assert len(ours) == case["proof_len"]
        bp.verify(ours, our_commitments, bits=case["n"], label=case["transcript_label"])


def test_reference_negative_cases_are_rejected(rangeproof_vectors):
    for case in rangeproof_vectors["negative_cases"]:
        with pytest.raises((bp.VerificationError, bp.InvalidArgumentError)):
            bp.verify(bytes.fromhex(case["proof"]), [bytes.fromhex(c) for c in case["commitments"]],
                      bits=case["n"], label=case["transcript_label"])


def test_batch_names_exactly_the_failing_proofs(rangeproof_vectors):
    items = [([bytes.fromhex(case["proof"])][0], [bytes.fromhex(c) for c in case["commitments"]], case["n"],
              case["transcript_label"]) for case in rangeproof_vectors["cases"]]
    assert bp.verify_batch(items) == []
    bad = rangeproof_vectors["negative_cases"][:3]
    mixed = items[:2] + [(bytes.fromhex(c["proof"]), [bytes.fromhex(x) for x in c["commitments"]], c["n"],
                          c["transcript_label"]) for c in bad] + items[2:4]
    assert bp.verify_batch(mixed) == [2, 3, 4]


def test_bad_input_raises_typed_errors():
    with pytest.raises(bp.InvalidArgumentError):
        bp.prove([1, 2, 3])  # m not a power of two
    with pytest.raises(bp.InvalidArgumentError):
        bp.prove([300], bits=8)
    with pytest.raises(bp.InvalidArgumentError, match="canonical"):
        bp.prove([1], [b"\xff" * 32])
    proof, commitments = bp.prove([5], label="a")
    with pytest.raises(bp.VerificationError):
        bp.verify(proof, commitments, label="b")
    with pytest.raises(bp.InvalidArgumentError):
        bp.verify(proof[:-32], commitments, label="a")


def test_keys_round_trip_and_permissions(tmp_path):
    key = bp.Key.generate()
    key.save(tmp_path / "k.key")
    assert bp.Key.load(tmp_path / "k.key").public_key == key.public_key
    assert (tmp_path / "k.key.pub").read_text().strip() == key.public_key_hex
    with pytest.raises(bp.InvalidArgumentError):
        key.save(tmp_path / "k.key")  # never overwrites
    (tmp_path / "k.key").chmod(0o644)
    with pytest.raises(bp.InvalidArgumentError):
        bp.Key.load(tmp_path / "k.key")


def test_many_threads_at_once():
    errors = []

    def work():
        try:
            for value in range(5):
                proof, commitments = bp.prove([value, value + 1], bits=32, label="threads")
                bp.verify(proof, commitments, bits=32, label="threads")
        except Exception as e:  # noqa: BLE001 (collected and asserted below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_key_is_a_context_manager():
    with bp.Key.generate() as key:
        assert len(key.public_key) == 32
    assert not key._handle  # freed (and its secret wiped in libbp) on leaving the block
