"""ctypes declarations of libbp's C ABI (bindings/c/include/bp/bp.h); nothing Pythonic here."""
import ctypes
import ctypes.util
import os
from pathlib import Path


class Error(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("message", ctypes.c_char * 512),
        ("blamed_count", ctypes.c_size_t),
        ("blamed", ctypes.c_uint32 * 64),
    ]


class BatchItem(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("proof", ctypes.c_void_p),
        ("proof_len", ctypes.c_size_t),
        ("commitments", ctypes.c_void_p),
        ("m", ctypes.c_size_t),
        ("n", ctypes.c_size_t),
        ("label", ctypes.c_char_p),
    ]


class Event(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("attempt", ctypes.c_size_t), ("position", ctypes.c_size_t),
                ("round", ctypes.c_int), ("delay_ms", ctypes.c_uint32), ("detail", ctypes.c_char_p)]


EVENT_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(Event))


class ClientOptions(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("timeout_ms", ctypes.c_uint32),
        ("ca_file", ctypes.c_char_p),
        ("identity", ctypes.c_void_p),
        ("dealer_key", ctypes.c_void_p),
        ("reconnect_attempts", ctypes.c_int),
        ("reconnect_first_delay_ms", ctypes.c_uint32),
        ("reconnect_max_delay_ms", ctypes.c_uint32),
        ("reconnect_give_up_after_ms", ctypes.c_uint32),
        ("idle_timeout_ms", ctypes.c_uint32),
        ("on_event", EVENT_CALLBACK),  # ABI 0.7
        ("event_user", ctypes.c_void_p),
        ("min_session_parties", ctypes.c_uint32),  # ABI 0.8
    ]


class ValueBounds(ctypes.Structure):
    _fields_ = [("min", ctypes.c_uint64), ("max", ctypes.c_uint64), ("has_max", ctypes.c_int)]


class SessionRequest(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("bits", ctypes.c_size_t),
        ("parties", ctypes.c_size_t),
        ("label", ctypes.c_char_p),
        ("round_timeout_ms", ctypes.c_uint32),
        ("session_id", ctypes.c_char_p),
        ("allowed_parties", ctypes.c_void_p),
        ("values_per_party", ctypes.POINTER(ctypes.c_uint32)),  # ABI 0.3
        ("bounds", ctypes.POINTER(ValueBounds)),
        ("bounds_count", ctypes.c_size_t),
        ("gadgets", ctypes.c_char_p),  # ABI 0.6
        ("min_parties", ctypes.c_uint32),  # ABI 0.8
        ("join_window_ms", ctypes.c_uint32),
        ("gadget_successors", ctypes.c_int),
    ]


class JoinValues(ctypes.Structure):  # ABI 0.3
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("values", ctypes.POINTER(ctypes.c_uint64)),
        ("count", ctypes.c_size_t),
        ("blindings", ctypes.c_char_p),
        ("bounds", ctypes.POINTER(ValueBounds)),
        ("bits", ctypes.c_size_t),  # ABI 0.4
    ]


class JoinGadget(ctypes.Structure):  # ABI 0.6
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("gadget", ctypes.c_char_p),
        ("values", ctypes.POINTER(ctypes.c_uint64)),
        ("count", ctypes.c_size_t),
        ("blindings", ctypes.c_char_p),
    ]


JOIN_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Error))


def _find_library():
    """BP_LIBBP names the library; else the copy installed beside this package; else the system's."""
    explicit = os.environ.get("BP_LIBBP")
    if explicit:
        return explicit
    here = Path(__file__).resolve().parent / "libbp.so.0"
    if here.exists():
        return str(here)
    return ctypes.util.find_library("bp") or "libbp.so.0"


def _load():
    """libbp; from a wheel, after the libraries the wheel carries for it (loaded first and
    globally, so the dynamic loader takes them for libbp's needs by their sonames)."""
    path = _find_library()
    here = Path(__file__).resolve().parent
    if Path(path).parent == here:
        for bundled in ("libsodium.so.23", "libprotobuf.so.32"):
            if (here / bundled).exists():
                ctypes.CDLL(str(here / bundled), mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(path)


lib = _load()

_P = ctypes.c_void_p
_SZ = ctypes.c_size_t
_ERR = ctypes.POINTER(Error)
_SIGNATURES = {
    "bp_abi_version": (ctypes.c_int, []),
    "bp_error_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "bp_bytes_free": (None, [_P]),
    "bp_key_generate": (ctypes.c_int, [ctypes.POINTER(_P), _ERR]),
    "bp_key_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P), _ERR]),
    "bp_key_save": (ctypes.c_int, [_P, ctypes.c_char_p, _ERR]),
    "bp_key_public": (None, [_P, ctypes.c_char_p]),
    "bp_key_free": (None, [_P]),
    "bp_blinding_random": (None, [ctypes.c_char_p]),
    "bp_prove": (ctypes.c_int, [ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p, _SZ, _SZ, ctypes.c_char_p,
                                ctypes.c_char_p, ctypes.POINTER(_P), ctypes.POINTER(_SZ), _ERR]),
    "bp_verify": (ctypes.c_int, [ctypes.c_char_p, _SZ, ctypes.c_char_p, _SZ, _SZ, ctypes.c_char_p, _ERR]),
    "bp_verify_batch": (ctypes.c_int, [ctypes.POINTER(BatchItem), _SZ, ctypes.POINTER(_SZ), ctypes.POINTER(_SZ), _ERR]),
    "bp_client_options_init": (None, [ctypes.POINTER(ClientOptions)]),
    "bp_session_request_init": (None, [ctypes.POINTER(SessionRequest)]),
    "bp_create_session": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(SessionRequest),
                                         ctypes.POINTER(ClientOptions), ctypes.c_char_p, _ERR]),
    "bp_join_and_prove": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p,
                                         ctypes.POINTER(ClientOptions), ctypes.POINTER(_P), _ERR]),
    "bp_join_result_json": (ctypes.c_char_p, [_P]),
    "bp_join_result_position": (_SZ, [_P]),
    "bp_join_result_positions": (_SZ, [_P]),
    "bp_join_result_bits": (_SZ, [_P]),
    "bp_join_result_label": (ctypes.c_char_p, [_P]),
    "bp_join_result_commitments": (_P, [_P]),
    "bp_join_result_proof": (_P, [_P, ctypes.POINTER(_SZ)]),
    "bp_join_result_dealer_signature": (_P, [_P]),
    "bp_join_result_free": (None, [_P]),
    "bp_join_start": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_char_p,
                                     ctypes.POINTER(ClientOptions), JOIN_CALLBACK, _P, ctypes.POINTER(_P), _ERR]),
    "bp_join_values_init": (None, [ctypes.POINTER(JoinValues)]),
    "bp_join_values_and_prove": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(JoinValues),
                                                ctypes.POINTER(ClientOptions), ctypes.POINTER(_P), _ERR]),
    "bp_join_values_start": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(JoinValues),
                                            ctypes.POINTER(ClientOptions), JOIN_CALLBACK, _P, ctypes.POINTER(_P),
                                            _ERR]),
    "bp_join_result_position_count": (_SZ, [_P]),
    "bp_r1cs_verify": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, _SZ, ctypes.c_char_p, _SZ, ctypes.c_char_p,
                                      _ERR]),
    "bp_join_gadget_init": (None, [ctypes.POINTER(JoinGadget)]),
    "bp_join_gadget_and_prove": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(JoinGadget),
                                                ctypes.POINTER(ClientOptions), ctypes.POINTER(_P), _ERR]),
    "bp_join_gadget_start": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(JoinGadget),
                                            ctypes.POINTER(ClientOptions), JOIN_CALLBACK, _P, ctypes.POINTER(_P),
                                            _ERR]),
    "bp_join_result_commitment_count": (_SZ, [_P]),
    "bp_join_result_gadgets": (ctypes.c_char_p, [_P]),
    "bp_join_cancel": (None, [_P]),
    "bp_join_handle_free": (None, [_P]),
}
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

ABI_MAJOR = 0
if lib.bp_abi_version() // 1000 != ABI_MAJOR:
    raise ImportError(f"libbp ABI {lib.bp_abi_version()} is not major version {ABI_MAJOR}")
