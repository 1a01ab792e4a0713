// Package bpaggregation: Bulletproofs range proofs and the aggregation service's party
// client for Go, over libbp's C ABI (bindings/c/include/bp/bp.h) with cgo.
//
// Build with libbp on the linker's path, e.g.
//
//	CGO_LDFLAGS="-L$BUILD/bindings/c -Wl,-rpath,$BUILD/bindings/c" go test ./...
//
// Values and blindings are wiped inside libbp after use; Go's copies are the caller's.
package bpaggregation

/*
#cgo CFLAGS: -I${SRCDIR}/../c/include
#cgo LDFLAGS: -lbp
#include <stdlib.h>
#include <string.h>
#include "bp/bp.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// ErrorKind is bp_error_kind: the client's kinds, then the library's own.
type ErrorKind int

const (
	Transport       ErrorKind = C.BP_ERR_TRANSPORT
	Timeout         ErrorKind = C.BP_ERR_TIMEOUT
	Protocol        ErrorKind = C.BP_ERR_PROTOCOL
	Aborted         ErrorKind = C.BP_ERR_ABORTED
	MaliciousDealer ErrorKind = C.BP_ERR_MALICIOUS_DEALER
	Refused         ErrorKind = C.BP_ERR_REFUSED
	InvalidArgument ErrorKind = C.BP_ERR_INVALID_ARGUMENT
	VerifyFailed    ErrorKind = C.BP_ERR_VERIFY_FAILED
	Cancelled       ErrorKind = C.BP_ERR_CANCELLED
	Internal        ErrorKind = C.BP_ERR_INTERNAL
	Unavailable     ErrorKind = C.BP_ERR_UNAVAILABLE // the session was not reachable again within the reconnect policy
	// The dealer refused the request itself (ABI 0.7, a wire 1.6 dealer; an older one's
	// refusals are Aborted).
	NotAllowed    ErrorKind = C.BP_ERR_NOT_ALLOWED     // our key or signature is not admitted
	NoSuchSession ErrorKind = C.BP_ERR_NO_SUCH_SESSION // the session id is unknown to the dealer
	OverLimit     ErrorKind = C.BP_ERR_OVER_LIMIT      // a limit of the dealer's: sessions, per operator, per address
	RateLimited   ErrorKind = C.BP_ERR_RATE_LIMITED    // too many new connections from our address; the message says when
)

func (k ErrorKind) String() string { return C.GoString(C.bp_error_kind_name(C.int(k))) }

// Error is a libbp error: its kind, message and the positions the dealer blamed.
type Error struct {
	Kind    ErrorKind
	Message string
	Blamed  []int
	// A Cancelled join's context error (context.Canceled or context.DeadlineExceeded), so
	// errors.Is(err, context.DeadlineExceeded) says why the context ended.
	cause error
}

func (e *Error) Error() string { return e.Message }

// Unwrap gives the context error of a join its context ended.
func (e *Error) Unwrap() error { return e.cause }

func fromC(status C.int, e *C.bp_error) error {
	if status == C.BP_OK {
		return nil
	}
	out := &Error{Kind: ErrorKind(status), Message: C.GoString(&e.message[0])}
	if out.Message == "" {
		out.Message = out.Kind.String()
	}
	for i := 0; i < int(e.blamed_count); i++ {
		out.Blamed = append(out.Blamed, int(e.blamed[i]))
	}
	return out
}

func invalid(format string, args ...any) error {
	return &Error{Kind: InvalidArgument, Message: fmt.Sprintf(format, args...)}
}

// ABIVersion is the loaded libbp's major*1000 + minor.
func ABIVersion() int { return int(C.bp_abi_version()) }

// Key is an Ed25519 identity (the same files as `bp-party keygen`); the secret stays in libbp.
type Key struct{ ptr *C.bp_key }

func newKey(ptr *C.bp_key) *Key {
	k := &Key{ptr}
	runtime.SetFinalizer(k, (*Key).Close)
	return k
}

func GenerateKey() (*Key, error) {
	var ptr *C.bp_key
	var e C.bp_error
	if err := fromC(C.bp_key_generate(&ptr, &e), &e); err != nil {
		return nil, err
	}
	return newKey(ptr), nil
}

func LoadKey(path string) (*Key, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var ptr *C.bp_key
	var e C.bp_error
	if err := fromC(C.bp_key_load(cpath, &ptr, &e), &e); err != nil {
		return nil, err
	}
	return newKey(ptr), nil
}

func (k *Key) Save(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var e C.bp_error
	return fromC(C.bp_key_save(k.ptr, cpath, &e), &e)
}

func (k *Key) PublicKey() [32]byte {
	var out [32]byte
	C.bp_key_public(k.ptr, (*C.uint8_t)(unsafe.Pointer(&out[0])))
	return out
}

// Close wipes and frees the secret key (also done by the finalizer).
func (k *Key) Close() {
	if k.ptr != nil {
		C.bp_key_free(k.ptr)
		k.ptr = nil
	}
}

func RandomBlinding() [32]byte {
	var out [32]byte
	C.bp_blinding_random((*C.uint8_t)(unsafe.Pointer(&out[0])))
	return out
}

// Prove shows each value is below 2^bits. Returns the proof and one commitment per value.
func Prove(values []uint64, blindings [][32]byte, bits int, label string) ([]byte, [][32]byte, error) {
	m := len(values)
	if m == 0 || len(blindings) != m {
		return nil, nil, invalid("need one 32-byte blinding per value, and at least one value")
	}
	// C memory, so libbp's pointers never point into Go's heap, and wiped here after use.
	cValues := (*C.uint64_t)(C.calloc(C.size_t(m), 8))
	cBlindings := (*C.uint8_t)(C.calloc(C.size_t(m), 32))
	defer func() {
		C.memset(unsafe.Pointer(cValues), 0, C.size_t(8*m))
		C.memset(unsafe.Pointer(cBlindings), 0, C.size_t(32*m))
		C.free(unsafe.Pointer(cValues))
		C.free(unsafe.Pointer(cBlindings))
	}()
	vs := unsafe.Slice((*uint64)(unsafe.Pointer(cValues)), m)
	bs := unsafe.Slice((*byte)(unsafe.Pointer(cBlindings)), 32*m)
	for j := range values {
		vs[j] = values[j]
		copy(bs[32*j:], blindings[j][:])
	}
	commitments := make([][32]byte, m)
	cCommitments := (*C.uint8_t)(C.malloc(C.size_t(32 * m)))
	defer C.free(unsafe.Pointer(cCommitments))
	cLabel := C.CString(label)
	defer C.free(unsafe.Pointer(cLabel))
	var proof *C.uint8_t
	var proofLen C.size_t
	var e C.bp_error
	if err := fromC(C.bp_prove(cValues, cBlindings, C.size_t(m), C.size_t(bits), cLabel, cCommitments, &proof, &proofLen, &e), &e); err != nil {
		return nil, nil, err
	}
	defer C.bp_bytes_free(proof)
	points := C.GoBytes(unsafe.Pointer(cCommitments), C.int(32*m))
	for j := range commitments {
		copy(commitments[j][:], points[32*j:])
	}
	return C.GoBytes(unsafe.Pointer(proof), C.int(proofLen)), commitments, nil
}

func joinPoints(points [][32]byte) unsafe.Pointer {
	buf := C.malloc(C.size_t(32 * len(points)))
	all := unsafe.Slice((*byte)(buf), 32*len(points))
	for j := range points {
		copy(all[32*j:], points[j][:])
	}
	return buf
}

// Verify returns nil if the proof verifies, an *Error of kind VerifyFailed if it does not,
// or InvalidArgument if it cannot be parsed.
func Verify(proof []byte, commitments [][32]byte, bits int, label string) error {
	if len(proof) == 0 || len(commitments) == 0 {
		return invalid("empty proof or no commitments")
	}
	cProof := C.CBytes(proof)
	defer C.free(cProof)
	cPoints := joinPoints(commitments)
	defer C.free(cPoints)
	cLabel := C.CString(label)
	defer C.free(unsafe.Pointer(cLabel))
	var e C.bp_error
	return fromC(C.bp_verify((*C.uint8_t)(cProof), C.size_t(len(proof)), (*C.uint8_t)(cPoints),
		C.size_t(len(commitments)), C.size_t(bits), cLabel, &e), &e)
}

// R1CSVerify returns nil if the proof shows the gadget list ("shuffle:3;range:32") holds over
// the commitments under the label, as `bp r1cs verify` checks it; an *Error of kind
// VerifyFailed if not, InvalidArgument for a bad list, count or proof bytes.
func R1CSVerify(gadgets string, commitments [][32]byte, proof []byte, label string) error {
	if len(proof) == 0 || len(commitments) == 0 {
		return invalid("empty proof or no commitments")
	}
	cProof := C.CBytes(proof)
	defer C.free(cProof)
	cPoints := joinPoints(commitments)
	defer C.free(cPoints)
	cGadgets, cLabel := C.CString(gadgets), C.CString(label)
	defer C.free(unsafe.Pointer(cGadgets))
	defer C.free(unsafe.Pointer(cLabel))
	var e C.bp_error
	return fromC(C.bp_r1cs_verify(cGadgets, (*C.uint8_t)(cPoints), C.size_t(len(commitments)), (*C.uint8_t)(cProof),
		C.size_t(len(proof)), cLabel, &e), &e)
}

// BatchItem is one proof for VerifyBatch.
type BatchItem struct {
	Proof       []byte
	Commitments [][32]byte
	Bits        int
	Label       string
}

// VerifyBatch returns the indices of the proofs that fail (empty: all verify).
func VerifyBatch(items []BatchItem) ([]int, error) {
	if len(items) == 0 {
		return nil, nil
	}
	cItems := (*C.bp_batch_item)(C.calloc(C.size_t(len(items)), C.size_t(unsafe.Sizeof(C.bp_batch_item{}))))
	defer C.free(unsafe.Pointer(cItems))
	list := unsafe.Slice(cItems, len(items))
	var owned []unsafe.Pointer
	defer func() {
		for _, p := range owned {
			C.free(p)
		}
	}()
	for i, it := range items {
		if len(it.Proof) == 0 || len(it.Commitments) == 0 {
			return nil, invalid("item %d: empty proof or no commitments", i)
		}
		proof, points, label := C.CBytes(it.Proof), joinPoints(it.Commitments), unsafe.Pointer(C.CString(it.Label))
		owned = append(owned, proof, points, label)
		list[i] = C.bp_batch_item{size: C.size_t(unsafe.Sizeof(C.bp_batch_item{})), proof: (*C.uint8_t)(proof),
			proof_len: C.size_t(len(it.Proof)), commitments: (*C.uint8_t)(points), m: C.size_t(len(it.Commitments)),
			n: C.size_t(it.Bits), label: (*C.char)(label)}
	}
	failed := (*C.size_t)(C.calloc(C.size_t(len(items)), C.size_t(unsafe.Sizeof(C.size_t(0)))))
	defer C.free(unsafe.Pointer(failed))
	var count C.size_t
	var e C.bp_error
	status := C.bp_verify_batch(cItems, C.size_t(len(items)), failed, &count, &e)
	if status != C.BP_OK && status != C.BP_ERR_VERIFY_FAILED {
		return nil, fromC(status, &e)
	}
	var out []int
	for _, f := range unsafe.Slice(failed, int(count)) {
		out = append(out, int(f))
	}
	return out, nil
}
