"""Sessions from Python against a real bp-dealer on loopback: four parties as threads and as
asyncio tasks, a dropout, a bad CA, a wrong pinned dealer key, a cancelled join."""
import asyncio
import gc
import subprocess
import threading

import pytest

import bp_aggregation as bp
from conftest import CLI

VALUES = [1000000, 2**64 - 1, 0, 42424242]


def run_parties(dealer, session, count=4, **options):
    """Parties 0..count-1 join from threads; returns results and errors by position."""
    results, errors = {}, {}

    def party(i):
        try:
            results[i] = bp.join_and_prove(dealer.url, session, VALUES[i], identity=dealer.parties[i],
                                           dealer_key=dealer.key.public_key, timeout_ms=30000, **options)
        except bp.BpError as e:
            errors[i] = e

    threads = [threading.Thread(target=party, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def check_with_bp_verify(dealer, result):
    """The command-line verifier accepts the proof and the dealer's signature."""
    fields = result.fields
    subprocess.run([str(CLI), "verify", "--bits", "64", "--commitments", ",".join(fields["commitments"]),
                    "--proof", fields["proof"], "--label", fields["label"], "--session", fields["session"],
                    "--dealer-key", dealer.key.public_key_hex, "--signature", fields["dealer_signature"]],
                   check=True, capture_output=True)


def test_four_parties_in_threads(dealer):
    session = dealer.create_session()
    results, errors = run_parties(dealer, session)
    assert errors == {}
    assert sorted(r.position for r in results.values()) == [0, 1, 2, 3]
    proofs = {r.proof for r in results.values()}
    assert len(proofs) == 1
    result = results[0]
    assert result.fields["session"] == session
    bp.verify(result.proof, result.commitments, bits=64, label=result.label)
    check_with_bp_verify(dealer, result)


def test_four_parties_as_asyncio_tasks(dealer):
    session = dealer.create_session()

    async def main():
        return await asyncio.gather(*[
            bp.join_and_prove_async(dealer.url, session, VALUES[i], identity=dealer.parties[i],
                                    dealer_key=dealer.key.public_key, timeout_ms=30000) for i in range(4)])

    results = asyncio.run(main())
    assert len({r.proof for r in results}) == 1
    check_with_bp_verify(dealer, results[0])


def test_a_party_that_never_joins_is_blamed(dealer):
    session = dealer.create_session(round_timeout_ms=1500)
    results, errors = run_parties(dealer, session, count=3)
    assert results == {}
    assert sorted(errors) == [0, 1, 2]
    for e in errors.values():
        assert isinstance(e, bp.AbortedError) and e.kind == "abort"
        assert e.blamed == [3]


def test_a_quorum_session_proves_for_the_parties_who_came(dealer):
    session = dealer.create_session(min_parties=2, join_window_ms=1000)
    results, errors = run_parties(dealer, session, count=3)
    assert errors == {}
    assert sorted(r.position for r in results.values()) == [0, 1, 2]
    assert len({r.proof for r in results.values()}) == 1
    assert "parties=3" in results[0].label
    check_with_bp_verify(dealer, results[0])


def test_a_party_requiring_more_parties_than_the_set_refuses_before_committing(dealer):
    session = dealer.create_session(min_parties=2, join_window_ms=1000)
    results, errors = run_parties(dealer, session, count=3, min_session_parties=4)
    assert results == {}
    for e in errors.values():
        assert isinstance(e, bp.RefusedError)
        assert "the session holds 3 parties; we require 4" in str(e)


def test_the_others_follow_a_successor_without_a_party_that_withdrew(dealer):
    session = dealer.create_session(min_parties=2, join_window_ms=1000)
    results, errors = {}, {}

    def party(i, **extra):
        try:
            results[i] = bp.join_and_prove(dealer.url, session, VALUES[i], identity=dealer.parties[i],
                                           dealer_key=dealer.key.public_key, timeout_ms=30000, **extra)
        except bp.BpError as e:
            errors[i] = e

    threads = [threading.Thread(target=party, args=(0,)), threading.Thread(target=party, args=(1,)),
               threading.Thread(target=party, args=(2,), kwargs={"min_session_parties": 4})]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert isinstance(errors.pop(2), bp.RefusedError)
    assert errors == {}
    assert results[0].proof == results[1].proof
    assert results[0].fields["chain"] == [session]
    assert results[0].fields["session"] != session
    assert f"after={session}" in results[0].label
    check_with_bp_verify(dealer, results[0])


def test_a_certificate_from_another_ca_is_a_transport_error(tls_dealer, tmp_path):
    from conftest import make_certificate
    other_ca = make_certificate(tmp_path)
    session = tls_dealer.create_session(ca_file=tls_dealer.ca)
    with pytest.raises(bp.TransportError):
        bp.join_and_prove(tls_dealer.url, session, 1, identity=tls_dealer.parties[0], ca_file=other_ca,
                          timeout_ms=10000)


def test_a_dealer_with_another_key_is_malicious(dealer):
    session = dealer.create_session()
    with pytest.raises(bp.MaliciousDealerError):
        bp.join_and_prove(dealer.url, session, 1, identity=dealer.parties[0], dealer_key=bytes(32), timeout_ms=10000)


def test_cancelling_the_task_cancels_the_join(dealer):
    session = dealer.create_session()

    async def main():
        task = asyncio.create_task(bp.join_and_prove_async(dealer.url, session, 7, identity=dealer.parties[0],
                                                           timeout_ms=60000))
        await asyncio.sleep(0.5)
        assert not task.done()  # waiting for the other three
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        await asyncio.sleep(0.5)  # libbp's own answer to the cancel arrives meanwhile
        gc.collect()

    unhandled = []

    def run():
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda _loop, context: unhandled.append(context.get("message")))
        try:
            loop.run_until_complete(main())
            gc.collect()
        finally:
            loop.close()

    run()
    assert unhandled == []  # no "Future exception was never retrieved"


def test_a_backend_proves_a_batch_of_balances_within_bounds_in_one_seat(dealer):
    """Two parties, three bounded balances and one: one seat each, one proof, every value in
    [10, 10**6]; a balance outside its bounds is refused before anything is sent."""
    bounds = [(10, 10**6)] * 4
    session = bp.create_session(dealer.url, bits=32, parties=2, label="balances",
                                allowed_parties=[k.public_key for k in dealer.parties[:2]],
                                values_per_party=[3, 1], bounds=bounds, identity=dealer.operator,
                                dealer_key=dealer.key.public_key)
    results, errors = {}, {}

    def party(i, values):
        try:
            results[i] = bp.join_and_prove(dealer.url, session, values, identity=dealer.parties[i],
                                           bounds=bounds[:len(values)], bits=32, timeout_ms=30000)
        except bp.BpError as e:
            errors[i] = e

    threads = [threading.Thread(target=party, args=(0, [500, 70000, 10])),
               threading.Thread(target=party, args=(1, [10**6]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == {}
    assert (results[0].position, results[0].position_count) == (0, 6)
    assert (results[1].position, results[1].position_count) == (6, 2)
    fields = results[0].fields
    assert fields["bounds"] == [{"min": 10, "max": 10**6}] * 4 and len(fields["commitments"]) == 4
    # The record verifies as the bounded statement it states.
    subprocess.run([str(CLI), "verify", "--bits", "32", "--commitments", ",".join(fields["commitments"]),
                    "--proof", fields["proof"], "--label", fields["label"], "--min", "10", "--max", "1000000"],
                   check=True, capture_output=True)

    with pytest.raises(bp.RefusedError):
        bp.join_and_prove(dealer.url, session, [5], identity=dealer.parties[1], bounds=[(10, 10**6)], bits=32,
                          timeout_ms=5000)


def test_a_seat_of_other_terms_is_refused_alike_whatever_the_value(dealer):
    """The party states n and its bounds; a session of n = 8 is refused before committing by a
    party that proves 64 bits, with the same error for a value that would fit and one that
    would not, and a value outside its own statement never leaves the process."""
    def narrow_session():
        return bp.create_session(dealer.url, bits=8, parties=1, label="narrow",
                                 allowed_parties=[dealer.parties[0].public_key], identity=dealer.operator)
    details = []
    for value in (5, 300):  # a withdrawal ends its session: one each
        session = narrow_session()
        with pytest.raises(bp.RefusedError) as refused:
            bp.join_and_prove(dealer.url, session, value, identity=dealer.parties[0], timeout_ms=10000)
        details.append(str(refused.value))
    assert details[0] == details[1] and "bit size is 8" in details[0]
    with pytest.raises(bp.RefusedError):
        bp.join_and_prove(dealer.url, session, 300, identity=dealer.parties[0], bits=8, timeout_ms=10000)
    with pytest.raises(bp.InvalidArgumentError):
        bp.join_and_prove(dealer.url, session, 3, identity=dealer.parties[0], bits=7, timeout_ms=10000)


def test_a_gadget_session_gives_one_r1cs_proof_and_refuses_another_gadget_before_committing(dealer):
    gadgets = "shuffle:2;range:16"
    session = bp.create_session(dealer.url, gadgets=gadgets, label="python gadgets", identity=dealer.operator,
                                dealer_key=dealer.key.public_key,
                                allowed_parties=[k.public_key for k in dealer.parties[:2]])
    common = dict(dealer_key=dealer.key.public_key, timeout_ms=30000)
    # Seat 1 is range:16: a party stating range:8 is refused, the same whatever its value.
    reasons = []
    for value in (5, 200):
        with pytest.raises(bp.AbortedError) as refused:
            bp.join_gadget(dealer.url, session, "range:8", [value], identity=dealer.parties[1], **common)
        reasons.append(refused.value.message)
    assert reasons[0] == reasons[1] and "the party states range:8" in reasons[0]
    with pytest.raises(bp.RefusedError):  # not a shuffle of its inputs: never connects
        bp.join_gadget(dealer.url, session, "shuffle:2", [1, 2, 3, 4], identity=dealer.parties[0], **common)
    results = {}

    def party(i, gadget, values):
        results[i] = bp.join_gadget(dealer.url, session, gadget, values, identity=dealer.parties[i], **common)

    threads = [threading.Thread(target=party, args=(0, "shuffle:2", [7, 8, 8, 7])),
               threading.Thread(target=party, args=(1, "range:16", [65535]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0].proof == results[1].proof and results[1].position == 1
    result = results[0]
    assert result.gadgets == gadgets and len(result.commitments) == 5 and result.bits == 0
    bp.r1cs_verify(result.gadgets, result.commitments, result.proof, label=result.label)
    fields = result.fields
    subprocess.run([str(CLI), "r1cs", "verify", "--gadgets", gadgets, "--commitments", ",".join(fields["commitments"]),
                    "--proof", fields["proof"], "--label", fields["label"], "--session", fields["session"],
                    "--dealer-key", dealer.key.public_key_hex, "--signature", fields["dealer_signature"]],
                   check=True, capture_output=True)


def test_refusals_say_their_kind(dealer):
    """A dealer's refusal of the request is its own exception, and still an AbortedError."""
    session = dealer.create_session(parties=2)
    stranger = bp.Key.generate()
    with pytest.raises(bp.NotAllowedError) as not_listed:
        bp.join_and_prove(dealer.url, session, 1, identity=stranger, dealer_key=dealer.key.public_key,
                          timeout_ms=10000)
    assert isinstance(not_listed.value, bp.AbortedError) and not_listed.value.kind == "not allowed"
    assert "not allowed in the session" in not_listed.value.message
    with pytest.raises(bp.NoSuchSessionError):
        bp.join_and_prove(dealer.url, "a" * 32, 1, identity=dealer.parties[0], dealer_key=dealer.key.public_key,
                          timeout_ms=10000)
    with pytest.raises(bp.NotAllowedError) as unknown_operator:
        dealer.create_session(identity=stranger)
    assert "unknown operator key" in unknown_operator.value.message


def test_a_gadget_session_from_asyncio_end_to_end(dealer):
    """create_session_async and join_gadget_async: a gadget session without a thread of our own."""
    gadgets = "range:8;range:16"
    common = dict(dealer_key=dealer.key.public_key, timeout_ms=30000)

    async def main():
        session = await bp.create_session_async(dealer.url, gadgets=gadgets, label="asyncio gadgets",
                                                identity=dealer.operator,
                                                allowed_parties=[k.public_key for k in dealer.parties[:2]], **common)
        return await asyncio.gather(
            bp.join_gadget_async(dealer.url, session, "range:8", [200], identity=dealer.parties[0], **common),
            bp.join_gadget_async(dealer.url, session, "range:16", [40000], identity=dealer.parties[1], **common))

    first, second = asyncio.run(main())
    assert first.proof == second.proof and first.gadgets == gadgets
    bp.r1cs_verify(first.gadgets, first.commitments, first.proof, label=first.label)


def test_a_join_reports_its_events(dealer):
    """on_event: what the join does, from libbp's thread; the default logs to "bp_aggregation"."""
    session = dealer.create_session(parties=2)
    events = {0: [], 1: []}

    def party(i):
        bp.join_and_prove(dealer.url, session, VALUES[i], identity=dealer.parties[i], dealer_key=dealer.key.public_key,
                          timeout_ms=30000, on_event=events[i].append)

    threads = [threading.Thread(target=party, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(2):
        kinds = [e.kind for e in events[i]]
        assert kinds[0] == "connecting" and "joined" in kinds and kinds[-1] == "done", kinds
        assert [e.round for e in events[i] if e.kind == "answered"] == [1, 2]
        assert events[i][-1].detail == "ok"
        assert [e.position for e in events[i] if e.kind == "joined"] == [i]
