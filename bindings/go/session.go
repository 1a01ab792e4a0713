package bpaggregation

/*
#include <stdlib.h>
#include <string.h>
#include "bp/bp.h"
void bp_go_join_done(void* user, int status, bp_join_result* result, const bp_error* err);
void bp_go_event(void* user, const bp_event* event);
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/cgo"
	"time"
	"unsafe"
)

// Options are the client's options for sessions.
type Options struct {
	Timeout   time.Duration // the whole exchange; 0: 120 s
	CAFile    string        // wss://: the dealer's certificate must chain to this PEM CA
	Identity  *Key          // signs the join or the session request; nil: anonymous
	DealerKey *[32]byte     // refuse a dealer with any other key
	// The reconnect policy: a join whose connection drops, or whose dealer moves the session
	// to another replica (a rolling restart), joins again with its seat's token; per outage at
	// most ReconnectAttempts connections (0, the zero value: the default, 20; < 0: never
	// reconnect) and ReconnectGiveUpAfter (0: 60 s), waiting ReconnectFirstDelay (0: 200 ms)
	// doubling up to ReconnectMaxDelay (0: 5 s); then an Unavailable error.
	ReconnectAttempts    int
	ReconnectFirstDelay  time.Duration
	ReconnectMaxDelay    time.Duration
	ReconnectGiveUpAfter time.Duration
	IdleTimeout          time.Duration // a dealer answering no ping this long is left; 0: 15 s
	// OnEvent, when set, gets what a join does as it does it (libbp's thread: keep it short).
	OnEvent func(Event)
	// MinSessionParties is a join's own minimum of parties in its session (an anonymity set):
	// a seat in a session of fewer (or from a dealer before wire 1.7, which does not say) is
	// refused before committing, whatever the values. 0: any.
	MinSessionParties int
}

// EventKind is bp_event_kind.
type EventKind int

const (
	EventConnecting   EventKind = C.BP_EVENT_CONNECTING   // a connection; Attempt: its count in this outage
	EventJoined       EventKind = C.BP_EVENT_JOINED       // seated; Position: our first
	EventResumed      EventKind = C.BP_EVENT_RESUMED      // back in our seat after a reconnection
	EventAnswered     EventKind = C.BP_EVENT_ANSWERED     // a round's challenge answered; Round: which
	EventReplayed     EventKind = C.BP_EVENT_REPLAYED     // our last answer sent again after a reconnection
	EventReconnecting EventKind = C.BP_EVENT_RECONNECTING // dropped or moved; Detail: why, Delay: the wait
	EventGaveUp       EventKind = C.BP_EVENT_GAVE_UP      // the reconnect policy is spent
	EventDone         EventKind = C.BP_EVENT_DONE         // the join ended; Detail: "ok" or the error
)

// Event is one thing a join did (bp_event).
type Event struct {
	Kind     EventKind
	Attempt  int
	Position int
	Round    int
	Delay    time.Duration
	Detail   string
}

//export bpGoEvent
func bpGoEvent(user unsafe.Pointer, ev *C.bp_event) {
	onEvent := cgo.Handle(*(*C.uintptr_t)(user)).Value().(func(Event))
	onEvent(Event{Kind: EventKind(ev.kind), Attempt: int(ev.attempt), Position: int(ev.position), Round: int(ev.round),
		Delay: time.Duration(ev.delay_ms) * time.Millisecond, Detail: C.GoString(ev.detail)})
}

// cOptions is the C struct and the C memory it points into (freed by release).
type cOptions struct {
	c       C.bp_client_options
	owned   []unsafe.Pointer
	handles []cgo.Handle
}

func (o *Options) toC() *cOptions {
	out := &cOptions{}
	C.bp_client_options_init(&out.c)
	if o == nil {
		return out
	}
	out.c.timeout_ms = C.uint32_t(o.Timeout / time.Millisecond)
	if o.CAFile != "" {
		p := C.CString(o.CAFile)
		out.owned = append(out.owned, unsafe.Pointer(p))
		out.c.ca_file = p
	}
	if o.Identity != nil {
		out.c.identity = o.Identity.ptr
	}
	if o.DealerKey != nil {
		p := C.CBytes(o.DealerKey[:])
		out.owned = append(out.owned, p)
		out.c.dealer_key = (*C.uint8_t)(p)
	}
	out.c.reconnect_attempts = C.int(reconnectAttemptsForC(o.ReconnectAttempts))
	out.c.reconnect_first_delay_ms = C.uint32_t(o.ReconnectFirstDelay / time.Millisecond)
	out.c.reconnect_max_delay_ms = C.uint32_t(o.ReconnectMaxDelay / time.Millisecond)
	out.c.reconnect_give_up_after_ms = C.uint32_t(o.ReconnectGiveUpAfter / time.Millisecond)
	out.c.idle_timeout_ms = C.uint32_t(o.IdleTimeout / time.Millisecond)
	out.c.min_session_parties = C.uint32_t(o.MinSessionParties)
	if o.OnEvent != nil {
		handle := cgo.NewHandle(o.OnEvent)
		out.handles = append(out.handles, handle)
		user := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
		*(*C.uintptr_t)(user) = C.uintptr_t(handle)
		out.owned = append(out.owned, user)
		out.c.on_event = C.bp_event_callback(C.bp_go_event)
		out.c.event_user = user
	}
	return out
}

// Go's zero value means the default (an Options written without the field reconnects); the C
// ABI's 0 means never and its negative the default.
func reconnectAttemptsForC(attempts int) int {
	switch {
	case attempts > 0:
		return attempts
	case attempts < 0:
		return 0
	default:
		return -1
	}
}

func (o *cOptions) release() {
	for _, p := range o.owned {
		C.free(p)
	}
	for _, h := range o.handles {
		h.Delete()
	}
}

// SessionRequest describes a session to open.
type SessionRequest struct {
	Bits           int
	Parties        int
	Label          string
	RoundTimeout   time.Duration
	SessionID      string     // 32 lowercase hex to propose; "": a random one
	AllowedParties [][32]byte // the parties' keys in seat order; nil: anonymous
	// How many values each party proves (nil: one each), and the bounds of every value in
	// party order (nil: each in [0, 2^Bits)); a value with both ends takes two positions.
	ValuesPerParty []uint32
	Bounds         []Bounds
	// A gadget session instead (wire 1.5): one gadget per seat in seat order, as `bp r1cs`
	// reads a list ("shuffle:3;range:32"); Parties must be its number of items, Bits is not used.
	Gadgets string
	// A quorum (wire 1.7): the session starts with the parties present once all have joined,
	// or once JoinWindow (0: the round timeout) ends with at least MinParties of them; fewer:
	// it aborts. 0: every party.
	MinParties int
	JoinWindow time.Duration
	// GadgetSuccessors lets a gadget session with a quorum go on without the parties it
	// blames, its list without their items (the statement changes).
	GadgetSuccessors bool
}

// Bounds are public bounds on a value: v >= Min, and v <= Max when HasMax.
type Bounds struct {
	Min, Max uint64
	HasMax   bool
}

// cBounds copies bounds into C memory (freed by the caller); nil for none.
func cBounds(bounds []Bounds) *C.bp_value_bounds {
	if len(bounds) == 0 {
		return nil
	}
	size := C.size_t(unsafe.Sizeof(C.bp_value_bounds{}))
	out := (*C.bp_value_bounds)(C.calloc(C.size_t(len(bounds)), size))
	items := unsafe.Slice(out, len(bounds))
	for i, b := range bounds {
		items[i].min, items[i].max = C.uint64_t(b.Min), C.uint64_t(b.Max)
		if b.HasMax {
			items[i].has_max = 1
		}
	}
	return out
}

// CreateSessionContext is CreateSession under a context: a deadline shortens the request's
// timeout to it, and a context that ends first returns an *Error of kind Cancelled whose
// Unwrap is ctx.Err() (the request itself runs to its own timeout in the background; a
// session the dealer made meanwhile ends at its join deadline, its id known to nobody).
func CreateSessionContext(ctx context.Context, dealerURL string, req SessionRequest, opts *Options) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", &Error{Kind: Cancelled, Message: "cancelled: " + err.Error(), cause: err}
	}
	bounded := Options{}
	if opts != nil {
		bounded = *opts
	}
	if deadline, ok := ctx.Deadline(); ok {
		left := time.Until(deadline)
		if left <= 0 {
			return "", &Error{Kind: Cancelled, Message: "cancelled: " + context.DeadlineExceeded.Error(),
				cause: context.DeadlineExceeded}
		}
		if bounded.Timeout == 0 || left < bounded.Timeout {
			bounded.Timeout = left
		}
	}
	type created struct {
		id  string
		err error
	}
	answer := make(chan created, 1)
	go func() {
		id, err := CreateSession(dealerURL, req, &bounded)
		answer <- created{id, err}
	}()
	select {
	case a := <-answer:
		return a.id, a.err
	case <-ctx.Done():
		return "", &Error{Kind: Cancelled, Message: "cancelled: " + ctx.Err().Error(), cause: ctx.Err()}
	}
}

// CreateSession opens a session (signed by opts.Identity) and returns its id.
func CreateSession(dealerURL string, req SessionRequest, opts *Options) (string, error) {
	if req.AllowedParties != nil && len(req.AllowedParties) != req.Parties {
		return "", invalid("one allowed key per party")
	}
	if req.ValuesPerParty != nil && len(req.ValuesPerParty) != req.Parties {
		return "", invalid("one value count per party")
	}
	var r C.bp_session_request
	C.bp_session_request_init(&r)
	r.bits, r.parties = C.size_t(req.Bits), C.size_t(req.Parties)
	r.round_timeout_ms = C.uint32_t(req.RoundTimeout / time.Millisecond)
	r.min_parties = C.uint32_t(req.MinParties)
	r.join_window_ms = C.uint32_t(req.JoinWindow / time.Millisecond)
	if req.GadgetSuccessors {
		r.gadget_successors = 1
	}
	var owned []unsafe.Pointer
	defer func() {
		for _, p := range owned {
			C.free(p)
		}
	}()
	if req.Label != "" {
		p := C.CString(req.Label)
		owned = append(owned, unsafe.Pointer(p))
		r.label = p
	}
	if req.SessionID != "" {
		p := C.CString(req.SessionID)
		owned = append(owned, unsafe.Pointer(p))
		r.session_id = p
	}
	if req.AllowedParties != nil {
		p := joinPoints(req.AllowedParties)
		owned = append(owned, p)
		r.allowed_parties = (*C.uint8_t)(p)
	}
	if len(req.ValuesPerParty) != 0 {
		p := C.calloc(C.size_t(len(req.ValuesPerParty)), 4)
		owned = append(owned, p)
		copy(unsafe.Slice((*uint32)(p), len(req.ValuesPerParty)), req.ValuesPerParty)
		r.values_per_party = (*C.uint32_t)(p)
	}
	if b := cBounds(req.Bounds); b != nil {
		owned = append(owned, unsafe.Pointer(b))
		r.bounds, r.bounds_count = b, C.size_t(len(req.Bounds))
	}
	if req.Gadgets != "" {
		p := C.CString(req.Gadgets)
		owned = append(owned, unsafe.Pointer(p))
		r.gadgets = p
	}
	o := opts.toC()
	defer o.release()
	url := C.CString(dealerURL)
	defer C.free(unsafe.Pointer(url))
	out := (*C.char)(C.calloc(33, 1))
	defer C.free(unsafe.Pointer(out))
	var e C.bp_error
	if err := fromC(C.bp_create_session(url, &r, &o.c, out, &e), &e); err != nil {
		return "", err
	}
	return C.GoString(out), nil
}

// JoinResult is the aggregated proof a join returns, checked, with the dealer's signature
// (checked too).
type JoinResult struct {
	JSON            string
	Position        int // our first position
	PositionCount   int // how many were ours: a value each, two for a value with both bounds
	Bits            int
	Label           string
	Commitments     [][32]byte
	Proof           []byte
	DealerSignature [64]byte
	Session         string `json:"session"`
	Gadgets         string // a gadget session's list ("": a range session); Position is then our seat
}

func takeResult(r *C.bp_join_result) *JoinResult {
	defer C.bp_join_result_free(r)
	m := int(C.bp_join_result_commitment_count(r))
	var proofLen C.size_t
	proof := C.bp_join_result_proof(r, &proofLen)
	out := &JoinResult{
		JSON:          C.GoString(C.bp_join_result_json(r)),
		Position:      int(C.bp_join_result_position(r)),
		PositionCount: int(C.bp_join_result_position_count(r)),
		Bits:          int(C.bp_join_result_bits(r)),
		Label:         C.GoString(C.bp_join_result_label(r)),
		Proof:         C.GoBytes(unsafe.Pointer(proof), C.int(proofLen)),
	}
	points := C.GoBytes(unsafe.Pointer(C.bp_join_result_commitments(r)), C.int(32*m))
	out.Commitments = make([][32]byte, m)
	for j := range out.Commitments {
		copy(out.Commitments[j][:], points[32*j:])
	}
	copy(out.DealerSignature[:], C.GoBytes(unsafe.Pointer(C.bp_join_result_dealer_signature(r)), 64))
	if g := C.bp_join_result_gadgets(r); g != nil {
		out.Gadgets = C.GoString(g)
	}
	var fields struct {
		Session string `json:"session"`
	}
	if json.Unmarshal([]byte(out.JSON), &fields) == nil {
		out.Session = fields.Session
	}
	return out
}

type joinOutcome struct {
	result *JoinResult
	err    error
}

//export bpGoJoinDone
func bpGoJoinDone(user unsafe.Pointer, status C.int, result *C.bp_join_result, e *C.bp_error) {
	done := cgo.Handle(*(*C.uintptr_t)(user)).Value().(chan joinOutcome)
	if status == C.BP_OK {
		done <- joinOutcome{result: takeResult(result)}
		return
	}
	done <- joinOutcome{err: fromC(status, e)}
}

// JoinAndProve joins the session with value and blinding (nil: a random one), runs the
// protocol and returns the aggregated proof. Cancelling ctx closes the connection and
// returns an *Error of kind Cancelled.
func JoinAndProve(ctx context.Context, dealerURL, sessionID string, value uint64, blinding *[32]byte,
	opts *Options) (*JoinResult, error) {
	var blindings [][32]byte
	if blinding != nil {
		blindings = [][32]byte{*blinding}
	}
	return JoinValuesAndProve(ctx, dealerURL, sessionID, []uint64{value}, blindings, nil, opts)
}

// JoinValuesAndProve joins the session with several values in one seat (one message per
// round for all of them), each with its blinding (nil: random ones), stating 64 bits and
// bounds (nil: none): JoinStatementAndProve with Statement{Bits: 64, Bounds: bounds}.
func JoinValuesAndProve(ctx context.Context, dealerURL, sessionID string, values []uint64, blindings [][32]byte,
	bounds []Bounds, opts *Options) (*JoinResult, error) {
	return JoinStatementAndProve(ctx, dealerURL, sessionID, values, blindings, Statement{Bits: 64, Bounds: bounds}, opts)
}

// Statement is what a party proves of its values, stated before it connects: each value
// below 2^Bits (0: 64), or within its Bounds (nil: none; a minimum alone: [Min, Min + 2^Bits)).
type Statement struct {
	Bits   int
	Bounds []Bounds
}

// JoinStatementAndProve joins the session with values proved as the statement says. A seat
// of another bit size, count or bounds, or a transcript label not this session's, is refused
// before anything about the values is sent, with the same answer whatever they are; a value
// outside the statement is refused before connecting.
func JoinStatementAndProve(ctx context.Context, dealerURL, sessionID string, values []uint64, blindings [][32]byte,
	statement Statement, opts *Options) (*JoinResult, error) {
	bounds := statement.Bounds
	if len(values) == 0 || (blindings != nil && len(blindings) != len(values)) ||
		(bounds != nil && len(bounds) != len(values)) {
		return nil, invalid("one value at least, and one blinding and bound per value if given")
	}
	o := opts.toC()
	defer o.release()
	url, session := C.CString(dealerURL), C.CString(sessionID)
	defer C.free(unsafe.Pointer(url))
	defer C.free(unsafe.Pointer(session))
	var v C.bp_join_values
	C.bp_join_values_init(&v)
	cValues := C.calloc(C.size_t(len(values)), 8)
	copy(unsafe.Slice((*uint64)(cValues), len(values)), values)
	defer func() {
		C.memset(cValues, 0, C.size_t(8*len(values)))
		C.free(cValues)
	}()
	v.values, v.count = (*C.uint64_t)(cValues), C.size_t(len(values))
	if blindings != nil {
		cBlindings := C.calloc(C.size_t(len(values)), 32)
		for i := range blindings {
			copy(unsafe.Slice((*byte)(cBlindings), 32*len(values))[32*i:], blindings[i][:])
		}
		defer func() {
			C.memset(cBlindings, 0, C.size_t(32*len(values)))
			C.free(cBlindings)
		}()
		v.blindings = (*C.uint8_t)(cBlindings)
	}
	if b := cBounds(bounds); b != nil {
		defer C.free(unsafe.Pointer(b))
		v.bounds = b
	}
	v.bits = C.size_t(statement.Bits)
	return runJoin(ctx, func(user unsafe.Pointer, join **C.bp_join_handle, e *C.bp_error) C.int {
		return C.bp_join_values_start(url, session, &v, &o.c, C.bp_join_callback(C.bp_go_join_done), user, join, e)
	})
}

// runJoin starts a background join with start (given the callback's user pointer) and waits
// for its outcome; cancelling ctx cancels the join.
func runJoin(ctx context.Context,
	start func(user unsafe.Pointer, join **C.bp_join_handle, e *C.bp_error) C.int) (*JoinResult, error) {
	done := make(chan joinOutcome, 1)
	handle := cgo.NewHandle(done)
	defer handle.Delete()
	user := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	defer C.free(user)
	*(*C.uintptr_t)(user) = C.uintptr_t(handle)
	var join *C.bp_join_handle
	var e C.bp_error
	if err := fromC(start(user, &join, &e), &e); err != nil {
		return nil, err
	}
	defer C.bp_join_handle_free(join)
	select {
	case outcome := <-done:
		return outcome.result, outcome.err
	case <-ctx.Done():
		C.bp_join_cancel(join)
		outcome := <-done
		var e *Error
		if errors.As(outcome.err, &e) && e.Kind == Cancelled {
			e.cause = ctx.Err()
		}
		return outcome.result, outcome.err
	}
}

// JoinGadget joins a gadget session proving gadget (one list item: "range:32", "shuffle:3",
// ...) over values, one per commitment of the gadget in its order, each with its blinding
// (nil: random ones), and returns the session's one R1CS proof (Gadgets, Label, every seat's
// Commitments), checked with the dealer's signature. Values that do not satisfy the gadget
// are refused before connecting; a seat of another gadget, or a label not this session's,
// before anything is committed, whatever the values are. Cancelling ctx cancels the join.
func JoinGadget(ctx context.Context, dealerURL, sessionID, gadget string, values []uint64, blindings [][32]byte,
	opts *Options) (*JoinResult, error) {
	if len(values) == 0 || (blindings != nil && len(blindings) != len(values)) {
		return nil, invalid("one value at least, and one blinding per value if given")
	}
	o := opts.toC()
	defer o.release()
	url, session, cGadget := C.CString(dealerURL), C.CString(sessionID), C.CString(gadget)
	defer C.free(unsafe.Pointer(url))
	defer C.free(unsafe.Pointer(session))
	defer C.free(unsafe.Pointer(cGadget))
	var g C.bp_join_gadget
	C.bp_join_gadget_init(&g)
	cValues := C.calloc(C.size_t(len(values)), 8)
	copy(unsafe.Slice((*uint64)(cValues), len(values)), values)
	defer func() {
		C.memset(cValues, 0, C.size_t(8*len(values)))
		C.free(cValues)
	}()
	g.gadget, g.values, g.count = cGadget, (*C.uint64_t)(cValues), C.size_t(len(values))
	if blindings != nil {
		cBlindings := C.calloc(C.size_t(len(values)), 32)
		for i := range blindings {
			copy(unsafe.Slice((*byte)(cBlindings), 32*len(values))[32*i:], blindings[i][:])
		}
		defer func() {
			C.memset(cBlindings, 0, C.size_t(32*len(values)))
			C.free(cBlindings)
		}()
		g.blindings = (*C.uint8_t)(cBlindings)
	}
	return runJoin(ctx, func(user unsafe.Pointer, join **C.bp_join_handle, e *C.bp_error) C.int {
		return C.bp_join_gadget_start(url, session, &g, &o.c, C.bp_join_callback(C.bp_go_join_done), user, join, e)
	})
}
