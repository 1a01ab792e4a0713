"""Bulletproofs range proofs and the aggregation service's party client, for Python.

A thin layer over libbp's C ABI (bindings/c/include/bp/bp.h) through ctypes:

    import bp_aggregation as bp
    key = bp.Key.load("party0.key")
    result = bp.join_and_prove("wss://dealer.example:8700", session_id, 42, identity=key,
                               ca_file="ca.crt", dealer_key=bytes.fromhex(DEALER_KEY_HEX))
    bp.verify(result.proof, result.commitments, bits=result.bits, label=result.label)

Errors are exceptions derived from BpError, carrying `kind`, `message` and `blamed`.
Values and blindings are wiped inside the library after use; Python's own ints and bytes
cannot be wiped, so keep them short-lived.
"""
import asyncio
import ctypes
import json
import logging
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import _native

__all__ = [
    "BpError", "TransportError", "TimeoutError", "ProtocolError", "AbortedError", "MaliciousDealerError",
    "RefusedError", "InvalidArgumentError", "VerificationError", "CancelledError", "InternalError",
    "UnavailableError", "NotAllowedError", "NoSuchSessionError", "OverLimitError", "RateLimitedError",
    "Key", "random_blinding", "prove", "verify", "verify_batch", "create_session", "join_and_prove",
    "join_and_prove_async", "join_gadget", "join_gadget_async", "create_session_async", "r1cs_verify",
    "JoinResult", "Event", "log_event", "abi_version",
]


class BpError(Exception):
    """A libbp error: `kind` (e.g. "abort"), `message`, and `blamed` (positions the dealer blamed)."""

    code = None

    def __init__(self, kind: str, message: str, blamed: Sequence[int] = ()):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.blamed = list(blamed)


class TransportError(BpError): code = 1
class TimeoutError(BpError): code = 2  # noqa: A001 (the library's kind, not the builtin)
class ProtocolError(BpError): code = 3
class AbortedError(BpError): code = 4
class MaliciousDealerError(BpError): code = 5
class RefusedError(BpError): code = 6
class InvalidArgumentError(BpError, ValueError): code = 7
class VerificationError(BpError): code = 8
class CancelledError(BpError): code = 9
class InternalError(BpError): code = 10
class UnavailableError(BpError): code = 11  # the session was not reachable again within the reconnect policy
# ABI 0.7: the dealer refused the request itself (a wire 1.6 dealer). Each is an AbortedError
# too, as an older dealer's refusal was, so `except AbortedError` still catches it.
class NotAllowedError(AbortedError): code = 12  # our key or signature is not admitted
class NoSuchSessionError(AbortedError): code = 13  # the session id is unknown to the dealer
class OverLimitError(AbortedError): code = 14  # a limit of the dealer's (sessions, per operator, per address)
class RateLimitedError(BpError): code = 15  # too many new connections from our address; the message says when


def _every_error(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _every_error(sub)


_BY_CODE = {cls.code: cls for cls in _every_error(BpError)}


def _raise(status: int, err: _native.Error):
    cls = _BY_CODE.get(status, InternalError)
    kind = _native.lib.bp_error_kind_name(status).decode()
    raise cls(kind, err.message.decode(errors="replace"), [err.blamed[i] for i in range(err.blamed_count)])


def _check(status: int, err: _native.Error):
    if status != 0:
        _raise(status, err)


def abi_version() -> int:
    return _native.lib.bp_abi_version()


class Key:
    """An Ed25519 identity (the same files as `bp-party keygen`). The secret stays in libbp."""

    def __init__(self, handle: int):
        self._handle = ctypes.c_void_p(handle)

    @classmethod
    def generate(cls) -> "Key":
        out, err = ctypes.c_void_p(), _native.Error()
        _check(_native.lib.bp_key_generate(ctypes.byref(out), ctypes.byref(err)), err)
        return cls(out.value)

    @classmethod
    def load(cls, path: str) -> "Key":
        out, err = ctypes.c_void_p(), _native.Error()
        _check(_native.lib.bp_key_load(str(path).encode(), ctypes.byref(out), ctypes.byref(err)), err)
        return cls(out.value)

    def save(self, path: str) -> None:
        err = _native.Error()
        _check(_native.lib.bp_key_save(self._handle, str(path).encode(), ctypes.byref(err)), err)

    @property
    def public_key(self) -> bytes:
        out = ctypes.create_string_buffer(32)
        _native.lib.bp_key_public(self._handle, out)
        return out.raw

    @property
    def public_key_hex(self) -> str:
        return self.public_key.hex()

    def close(self) -> None:
        if self._handle:
            _native.lib.bp_key_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self) -> "Key":
        return self

    def __exit__(self, *exc) -> None:
        self.close()  # the secret is wiped inside libbp now, not when the object is collected

    def __del__(self):
        self.close()


def random_blinding() -> bytes:
    out = ctypes.create_string_buffer(32)
    _native.lib.bp_blinding_random(out)
    return out.raw


def prove(values: Sequence[int], blindings: Optional[Sequence[bytes]] = None, bits: int = 64, label: str = "bp"):
    """Proves each value is below 2**bits. Returns (proof, commitments): bytes and a list of 32-byte bytes."""
    m = len(values)
    if blindings is None:
        blindings = [random_blinding() for _ in range(m)]
    if len(blindings) != m or any(len(b) != 32 for b in blindings):
        raise InvalidArgumentError("invalid argument", "one 32-byte blinding per value")
    c_values = (ctypes.c_uint64 * m)(*values) if m else (ctypes.c_uint64 * 1)()
    c_blindings = ctypes.create_string_buffer(b"".join(blindings), 32 * m) if m else ctypes.create_string_buffer(32)
    commitments = ctypes.create_string_buffer(32 * max(m, 1))
    proof, proof_len, err = ctypes.c_void_p(), ctypes.c_size_t(), _native.Error()
    try:
        status = _native.lib.bp_prove(c_values, c_blindings, m, bits, label.encode(), commitments,
                                      ctypes.byref(proof), ctypes.byref(proof_len), ctypes.byref(err))
    finally:
        ctypes.memset(c_values, 0, ctypes.sizeof(c_values))
        ctypes.memset(c_blindings, 0, ctypes.sizeof(c_blindings))
    _check(status, err)
    try:
        proof_bytes = ctypes.string_at(proof.value, proof_len.value)
    finally:
        _native.lib.bp_bytes_free(proof)
    return proof_bytes, [commitments.raw[32 * j:32 * j + 32] for j in range(m)]


def verify(proof: bytes, commitments: Sequence[bytes], bits: int = 64, label: str = "bp") -> None:
    """Returns if the proof verifies; raises VerificationError if not, InvalidArgumentError if unparsable."""
    err = _native.Error()
    joined = b"".join(commitments)
    _check(_native.lib.bp_verify(proof, len(proof), joined, len(commitments), bits, label.encode(),
                                 ctypes.byref(err)), err)


def r1cs_verify(gadgets: str, commitments: Sequence[bytes], proof: bytes, label: str = "bp") -> None:
    """Returns if the proof shows the gadget list ("shuffle:3;range:32") holds over the
    commitments under the label (as `bp r1cs verify` checks it); raises VerificationError if
    not, InvalidArgumentError for a bad list, count or proof bytes."""
    err = _native.Error()
    joined = b"".join(commitments)
    _check(_native.lib.bp_r1cs_verify(gadgets.encode(), joined, len(commitments), proof, len(proof), label.encode(),
                                      ctypes.byref(err)), err)


def verify_batch(items: Sequence[tuple]) -> List[int]:
    """items: (proof, commitments, bits, label) tuples. Returns the indices of those that fail."""
    count = len(items)
    keep = []  # the buffers must outlive the call
    c_items = (_native.BatchItem * max(count, 1))()
    for i, (proof, commitments, bits, label) in enumerate(items):
        proof_buf = ctypes.create_string_buffer(bytes(proof), max(len(proof), 1))
        points = ctypes.create_string_buffer(b"".join(commitments), max(32 * len(commitments), 1))
        label_b = label.encode()
        keep += [proof_buf, points, label_b]
        c_items[i] = _native.BatchItem(ctypes.sizeof(_native.BatchItem), ctypes.cast(proof_buf, ctypes.c_void_p),
                                       len(proof), ctypes.cast(points, ctypes.c_void_p), len(commitments), bits,
                                       label_b)
    failed = (ctypes.c_size_t * max(count, 1))()
    failed_count, err = ctypes.c_size_t(), _native.Error()
    status = _native.lib.bp_verify_batch(c_items, count, failed, ctypes.byref(failed_count), ctypes.byref(err))
    if status not in (0, VerificationError.code):
        _raise(status, err)
    return [failed[i] for i in range(failed_count.value)]


@dataclass
class Event:
    """What a join does as it does it (libbp's bp_event): kind is "connecting", "joined",
    "resumed", "answered", "replayed", "reconnecting", "gave up" or "done"."""
    kind: str
    attempt: int  # connecting, reconnecting: the connection's count in this outage
    position: int  # joined, resumed, answered, replayed: our first position
    round: int  # answered, replayed: which round's challenge
    delay_ms: int  # reconnecting: the wait before the next connection
    detail: str  # reconnecting, gave up: why; done: "ok" or the error


_EVENT_KINDS = ("connecting", "joined", "resumed", "answered", "replayed", "reconnecting", "gave up", "done")
_log = logging.getLogger("bp_aggregation")


def log_event(event: Event) -> None:
    """The default on_event: the logger "bp_aggregation", WARNING for a reconnection or giving
    up, DEBUG for the rest."""
    level = logging.WARNING if event.kind in ("reconnecting", "gave up") else logging.DEBUG
    if _log.isEnabledFor(level):
        _log.log(level, "join %s: attempt=%d position=%d round=%d delay_ms=%d %s", event.kind, event.attempt,
                 event.position, event.round, event.delay_ms, event.detail)


def _event_callback(on_event: Callable[[Event], None]):
    def call(_user, raw):
        e = raw.contents
        kind = _EVENT_KINDS[e.kind] if 0 <= e.kind < len(_EVENT_KINDS) else "unknown"
        try:
            on_event(Event(kind, e.attempt, e.position, e.round, e.delay_ms,
                           (e.detail or b"").decode(errors="replace")))
        except Exception:  # never into libbp's thread
            _log.exception("on_event raised")
    return _native.EVENT_CALLBACK(call)


def _options(timeout_ms=0, ca_file=None, identity: Optional[Key] = None, dealer_key: Optional[bytes] = None,
             reconnect_attempts: int = -1, reconnect_first_delay_ms: int = 0, reconnect_max_delay_ms: int = 0,
             reconnect_give_up_after_ms: int = 0, idle_timeout_ms: int = 0,
             on_event: Optional[Callable[[Event], None]] = log_event, min_session_parties: int = 0):
    """The client options (0 or -1: the library's default). The reconnect policy: a join whose
    connection drops, or whose dealer moves the session to another replica, joins again with its
    seat's token, at most reconnect_attempts connections (default 20) and
    reconnect_give_up_after_ms (default 60000) per outage, waiting reconnect_first_delay_ms
    (200) doubling up to reconnect_max_delay_ms (5000); then UnavailableError. on_event gets
    the join's events on libbp's thread (default: log_event; None: none). min_session_parties:
    a join's own minimum of parties in its session (a wire 1.7 dealer says how many); a seat in
    a smaller session is refused before committing (RefusedError)."""
    options = _native.ClientOptions()
    _native.lib.bp_client_options_init(ctypes.byref(options))
    options.timeout_ms = timeout_ms
    keep = []
    if on_event is not None:
        callback = _event_callback(on_event)
        keep.append(callback)  # lives as long as the options do
        options.on_event = callback
    if ca_file is not None:
        keep.append(str(ca_file).encode())
        options.ca_file = keep[-1]
    if identity is not None:
        options.identity = identity._handle
        keep.append(identity)
    if dealer_key is not None:
        if len(dealer_key) != 32:
            raise InvalidArgumentError("invalid argument", "dealer_key must be 32 bytes")
        buf = ctypes.create_string_buffer(bytes(dealer_key), 32)
        keep.append(buf)
        options.dealer_key = ctypes.cast(buf, ctypes.c_void_p)
    options.reconnect_attempts = reconnect_attempts
    options.reconnect_first_delay_ms = reconnect_first_delay_ms
    options.reconnect_max_delay_ms = reconnect_max_delay_ms
    options.reconnect_give_up_after_ms = reconnect_give_up_after_ms
    options.idle_timeout_ms = idle_timeout_ms
    options.min_session_parties = min_session_parties
    return options, keep


Bounds = Tuple[int, Optional[int]]  # (min, max or None): v >= min, and v <= max if given


def _bounds_array(bounds: Optional[Sequence[Bounds]]):
    if bounds is None:
        return None
    array = (_native.ValueBounds * max(len(bounds), 1))()
    for i, (low, high) in enumerate(bounds):
        array[i].min, array[i].max, array[i].has_max = low, 0 if high is None else high, high is not None
    return array


def create_session(dealer_url: str, bits: int = 64, parties: int = 1, label: str = "bp",
                   round_timeout_ms: int = 0, session_id: Optional[str] = None,
                   allowed_parties: Optional[Sequence[bytes]] = None,
                   values_per_party: Optional[Sequence[int]] = None,
                   bounds: Optional[Sequence[Bounds]] = None, gadgets: Optional[str] = None,
                   min_parties: int = 0, join_window_ms: int = 0, gadget_successors: bool = False,
                   **options) -> str:
    """Opens a session (signed by options' identity) and returns its id. values_per_party:
    how many values each party proves (default one each); bounds: one (min, max or None) per
    value in party order (a value with both ends takes two positions). gadgets: a gadget
    session instead, one gadget per seat in seat order ("shuffle:3;range:32"); parties is
    then the list's items and bits is not used. min_parties: a quorum (wire 1.7): the
    session starts with the parties present once all have joined, or once join_window_ms
    (0: the round timeout) ends with at least min_parties of them; 0: every party.
    gadget_successors: a gadget session with a quorum may go on without the parties it
    blames, its list without their items."""
    request = _native.SessionRequest()
    _native.lib.bp_session_request_init(ctypes.byref(request))
    if gadgets is not None:
        parties = len(gadgets.split(";"))
        request.gadgets = gadgets.encode()
    request.bits, request.parties, request.label = bits, parties, label.encode()
    request.round_timeout_ms = round_timeout_ms
    request.min_parties, request.join_window_ms = min_parties, join_window_ms
    request.gadget_successors = 1 if gadget_successors else 0
    counts = None
    if values_per_party is not None:
        if len(values_per_party) != parties:
            raise InvalidArgumentError("invalid argument", "one count per party")
        counts = (ctypes.c_uint32 * parties)(*values_per_party)
        request.values_per_party = counts
    c_bounds = _bounds_array(bounds)
    if c_bounds is not None:
        request.bounds, request.bounds_count = c_bounds, len(bounds)
    if session_id is not None:
        request.session_id = session_id.encode()
    keys = None
    if allowed_parties is not None:
        if len(allowed_parties) != parties:
            raise InvalidArgumentError("invalid argument", "one allowed key per party")
        keys = ctypes.create_string_buffer(b"".join(allowed_parties), 32 * parties)
        request.allowed_parties = ctypes.cast(keys, ctypes.c_void_p)
    c_options, keep = _options(**options)
    out, err = ctypes.create_string_buffer(33), _native.Error()
    _check(_native.lib.bp_create_session(dealer_url.encode(), ctypes.byref(request), ctypes.byref(c_options), out,
                                         ctypes.byref(err)), err)
    del keep, keys, counts, c_bounds
    return out.value.decode()


@dataclass
class JoinResult:
    """The aggregated proof a join returns, checked, with the dealer's signature (checked too)."""
    json: str
    position: int  # our first position
    bits: int
    label: str
    commitments: List[bytes]
    proof: bytes
    dealer_signature: bytes
    fields: dict = field(default_factory=dict)
    position_count: int = 1  # how many positions were ours (a value each; two for one with both bounds)
    gadgets: Optional[str] = None  # a gadget session's list (position is then our seat, bits 0)


def _take_result(handle) -> JoinResult:
    try:
        lib = _native.lib
        m = lib.bp_join_result_commitment_count(handle)
        gadgets = lib.bp_join_result_gadgets(handle)
        proof_len = ctypes.c_size_t()
        proof_ptr = lib.bp_join_result_proof(handle, ctypes.byref(proof_len))
        points = ctypes.string_at(lib.bp_join_result_commitments(handle), 32 * m)
        text = lib.bp_join_result_json(handle).decode()
        return JoinResult(json=text, position=lib.bp_join_result_position(handle), bits=lib.bp_join_result_bits(handle),
                          label=lib.bp_join_result_label(handle).decode(),
                          commitments=[points[32 * j:32 * j + 32] for j in range(m)],
                          proof=ctypes.string_at(proof_ptr, proof_len.value),
                          dealer_signature=ctypes.string_at(lib.bp_join_result_dealer_signature(handle), 64),
                          fields=json.loads(text), position_count=lib.bp_join_result_position_count(handle),
                          gadgets=None if gadgets is None else gadgets.decode())
    finally:
        _native.lib.bp_join_result_free(handle)


class _JoinValues:
    """The C form of a party's values, blindings and bounds; wipe() clears the secrets."""

    def __init__(self, value: Union[int, Sequence[int]], blinding, bounds: Optional[Sequence[Bounds]], bits: int):
        values = [value] if isinstance(value, int) else list(value)
        blindings = None if blinding is None else [blinding] if isinstance(blinding, (bytes, bytearray)) else list(blinding)
        if blindings is not None and (len(blindings) != len(values) or any(len(b) != 32 for b in blindings)):
            raise InvalidArgumentError("invalid argument", "one 32-byte blinding per value")
        if bounds is not None and len(bounds) != len(values):
            raise InvalidArgumentError("invalid argument", "bounds: one (min, max) per value")
        self.values = (ctypes.c_uint64 * len(values))(*values)
        self.blindings = None if blindings is None else ctypes.create_string_buffer(b"".join(blindings), 32 * len(values))
        self.bounds = _bounds_array(bounds)
        self.c = _native.JoinValues()
        _native.lib.bp_join_values_init(ctypes.byref(self.c))
        self.c.values, self.c.count, self.c.blindings = self.values, len(values), self.blindings
        if bits != 64 and _native.lib.bp_abi_version() % 1000 < 4:
            raise InvalidArgumentError("invalid argument", "this libbp (ABI before 0.4) proves 64 bits only")
        self.c.bits = bits
        if self.bounds is not None:
            self.c.bounds = self.bounds

    def wipe(self):
        ctypes.memset(self.values, 0, ctypes.sizeof(self.values))
        if self.blindings is not None:
            ctypes.memset(self.blindings, 0, ctypes.sizeof(self.blindings))


def join_and_prove(dealer_url: str, session_id: str, value: Union[int, Sequence[int]],
                   blinding: Union[None, bytes, Sequence[bytes]] = None,
                   bounds: Optional[Sequence[Bounds]] = None, bits: int = 64, **options) -> JoinResult:
    """Joins the session with one value or several (one seat), runs the protocol, returns the
    aggregated proof. The party states what it proves: each value below 2**bits, or within its
    bounds ((min, max or None) per value; a minimum alone: [min, min + 2**bits)). A seat of
    another bit size, count or bounds, or a label not this session's, is refused before the
    values take part, whatever they are; a value outside the statement is refused before
    connecting. timeout_ms bounds the whole join. Blocks (releases the GIL)."""
    c_options, keep = _options(**options)
    values = _JoinValues(value, blinding, bounds, bits)
    out, err = ctypes.c_void_p(), _native.Error()
    try:
        status = _native.lib.bp_join_values_and_prove(dealer_url.encode(), session_id.encode(), ctypes.byref(values.c),
                                                      ctypes.byref(c_options), ctypes.byref(out), ctypes.byref(err))
    finally:
        values.wipe()
    del keep
    _check(status, err)
    return _take_result(out.value)


def join_gadget(dealer_url: str, session_id: str, gadget: str, values: Sequence[int],
                blindings: Optional[Sequence[bytes]] = None, **options) -> JoinResult:
    """Joins a gadget session proving `gadget` (one list item: "range:32", "shuffle:3", ...)
    over `values`, one per commitment of the gadget in its order, and returns the session's
    one R1CS proof (result.gadgets, result.label, result.commitments of every seat, checked
    with the dealer's signature). Values that do not satisfy the gadget are refused before
    connecting; a seat of another gadget, or a label not this session's, before anything is
    committed, whatever the values are. Blocks (releases the GIL)."""
    joined = _JoinValues(list(values), None if blindings is None else list(blindings), None, 64)
    c = _native.JoinGadget()
    _native.lib.bp_join_gadget_init(ctypes.byref(c))
    c.gadget, c.values, c.count, c.blindings = gadget.encode(), joined.values, len(values), joined.blindings
    c_options, keep = _options(**options)
    out, err = ctypes.c_void_p(), _native.Error()
    try:
        status = _native.lib.bp_join_gadget_and_prove(dealer_url.encode(), session_id.encode(), ctypes.byref(c),
                                                      ctypes.byref(c_options), ctypes.byref(out), ctypes.byref(err))
    finally:
        joined.wipe()
    del keep
    _check(status, err)
    return _take_result(out.value)


async def _join_in_background(start, wipe, keep) -> JoinResult:
    """Runs a join started by `start(callback, handle, err)` in libbp's background thread and
    awaits it; cancelling the task cancels the join."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def deliver(status, result, message, blamed):
        if future.done():
            if result:
                _native.lib.bp_join_result_free(result)
            return
        if status == 0:
            future.set_result(_take_result(result))
        else:
            cls = _BY_CODE.get(status, InternalError)
            future.set_exception(cls(_native.lib.bp_error_kind_name(status).decode(), message, blamed))

    def done(_user, status, result, err):  # on libbp's thread
        message = err.contents.message.decode(errors="replace") if err else ""
        blamed = [err.contents.blamed[i] for i in range(err.contents.blamed_count)] if err else []
        loop.call_soon_threadsafe(deliver, status, result, message, blamed)

    callback = _native.JOIN_CALLBACK(done)
    handle, err = ctypes.c_void_p(), _native.Error()
    try:
        status = start(callback, ctypes.byref(handle), ctypes.byref(err))
    finally:
        wipe()
    _check(status, err)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        _native.lib.bp_join_cancel(handle)
        # Nobody awaits the join's own answer now: the future is cancelled too, so libbp's
        # "cancelled" is dropped rather than logged as an exception never retrieved.
        future.cancel()
        raise
    finally:
        # The handle waits for the callback to return; do that off the event loop. The
        # callback object must live until then.
        await loop.run_in_executor(None, _native.lib.bp_join_handle_free, handle)
        del callback, keep


async def join_and_prove_async(dealer_url: str, session_id: str, value: Union[int, Sequence[int]],
                               blinding: Union[None, bytes, Sequence[bytes]] = None,
                               bounds: Optional[Sequence[Bounds]] = None, bits: int = 64,
                               **options) -> JoinResult:
    """join_and_prove for asyncio: runs in libbp's background thread; cancelling the task cancels the join."""
    c_options, keep = _options(**options)
    values = _JoinValues(value, blinding, bounds, bits)
    return await _join_in_background(
        lambda callback, handle, err: _native.lib.bp_join_values_start(
            dealer_url.encode(), session_id.encode(), ctypes.byref(values.c), ctypes.byref(c_options), callback,
            None, handle, err),
        values.wipe, (keep, c_options, values))


async def join_gadget_async(dealer_url: str, session_id: str, gadget: str, values: Sequence[int],
                            blindings: Optional[Sequence[bytes]] = None, **options) -> JoinResult:
    """join_gadget for asyncio: runs in libbp's background thread; cancelling the task cancels the join."""
    joined = _JoinValues(list(values), None if blindings is None else list(blindings), None, 64)
    c = _native.JoinGadget()
    _native.lib.bp_join_gadget_init(ctypes.byref(c))
    c.gadget, c.values, c.count, c.blindings = gadget.encode(), joined.values, len(values), joined.blindings
    c_options, keep = _options(**options)
    return await _join_in_background(
        lambda callback, handle, err: _native.lib.bp_join_gadget_start(
            dealer_url.encode(), session_id.encode(), ctypes.byref(c), ctypes.byref(c_options), callback, None,
            handle, err),
        joined.wipe, (keep, c_options, joined, c))


async def create_session_async(dealer_url: str, **request) -> str:
    """create_session for asyncio: the request runs on the loop's default executor (libbp
    releases the GIL), bounded by the options' timeout_ms like the blocking form. Cancelling
    the task stops waiting for it; a session the dealer created meanwhile ends at its own
    join deadline, as one whose id nobody learned."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, lambda: create_session(dealer_url, **request))
