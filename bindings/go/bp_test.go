package bpaggregation

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Paths of the build to test against (BP_BUILD_DIR, default build/gcc) and the reference vectors.
func buildDir() string {
	if d := os.Getenv("BP_BUILD_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "build", "gcc")
}

func vectorsDir() string {
	if d := os.Getenv("BP_VECTORS_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "tests", "vectors")
}

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func points(t *testing.T, list []string) [][32]byte {
	out := make([][32]byte, len(list))
	for i, s := range list {
		copy(out[i][:], mustHex(t, s))
	}
	return out
}

type vectorCase struct {
	N           int      `json:"n"`
	Label       string   `json:"transcript_label"`
	Values      []string `json:"values"`
	Blindings   []string `json:"blindings"`
	Commitments []string `json:"commitments"`
	Proof       string   `json:"proof"`
}

// An Options without ReconnectAttempts reconnects with the default policy (a rolling restart
// of the dealer took a Go party written as the docs show, and its whole session, down).
func TestReconnectAttemptsZeroValueIsTheDefault(t *testing.T) {
	for attempts, want := range map[int]int{0: -1, -1: 0, -5: 0, 3: 3} {
		if got := reconnectAttemptsForC(attempts); got != want {
			t.Errorf("ReconnectAttempts %d: the C ABI gets %d, want %d", attempts, got, want)
		}
	}
	if got := int((&Options{Timeout: time.Second}).toC().c.reconnect_attempts); got != -1 {
		t.Errorf("an Options without ReconnectAttempts gives the C ABI %d, want -1 (the default)", got)
	}
}

func TestReferenceVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), "rangeproofs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases    []vectorCase `json:"cases"`
		Negative []vectorCase `json:"negative_cases"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	var batch []BatchItem
	for _, c := range vectors.Cases {
		commitments := points(t, c.Commitments)
		if err := Verify(mustHex(t, c.Proof), commitments, c.N, c.Label); err != nil {
			t.Fatalf("reference proof rejected: %v", err)
		}
		values := make([]uint64, len(c.Values))
		blindings := make([][32]byte, len(c.Values))
		for j := range c.Values {
			values[j], _ = strconv.ParseUint(c.Values[j], 10, 64)
			copy(blindings[j][:], mustHex(t, c.Blindings[j]))
		}
		proof, ours, err := Prove(values, blindings, c.N, c.Label)
		if err != nil || Verify(proof, ours, c.N, c.Label) != nil {
			t.Fatalf("our proof of the reference witness: %v", err)
		}
		for j := range ours {
			if ours[j] != commitments[j] {
				t.Fatalf("commitment %d differs from the reference", j)
			}
		}
		batch = append(batch, BatchItem{mustHex(t, c.Proof), commitments, c.N, c.Label})
	}
	for _, c := range vectors.Negative {
		err := Verify(mustHex(t, c.Proof), points(t, c.Commitments), c.N, c.Label)
		var e *Error
		if !errors.As(err, &e) || (e.Kind != VerifyFailed && e.Kind != InvalidArgument) {
			t.Fatalf("negative case accepted or wrong error: %v", err)
		}
	}
	bad := vectors.Negative[0]
	batch = append(batch[:2], append([]BatchItem{{mustHex(t, bad.Proof), points(t, bad.Commitments), bad.N, bad.Label}}, batch[2:]...)...)
	failed, err := VerifyBatch(batch)
	if err != nil || len(failed) != 1 || failed[0] != 2 {
		t.Fatalf("batch: failed=%v err=%v", failed, err)
	}
}

func TestKeysAndBadInput(t *testing.T) {
	dir := t.TempDir()
	key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "k.key")
	if err := key.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadKey(path)
	if err != nil || loaded.PublicKey() != key.PublicKey() {
		t.Fatalf("load: %v", err)
	}
	var e *Error
	if _, _, err := Prove([]uint64{300}, [][32]byte{RandomBlinding()}, 8, "x"); !errors.As(err, &e) || e.Kind != InvalidArgument {
		t.Fatalf("value out of range: %v", err)
	}
	proof, commitments, err := Prove([]uint64{5}, [][32]byte{RandomBlinding()}, 64, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(proof, commitments, 64, "b"); !errors.As(err, &e) || e.Kind != VerifyFailed {
		t.Fatalf("wrong label accepted: %v", err)
	}
}

// dealer is a real bp-dealer on loopback with an operator key, its own key and four party keys.
type dealer struct {
	url      string
	dir      string
	cmd      *exec.Cmd
	operator *Key
	key      *Key
	parties  []*Key
	ca       string // the CA of its certificate (TLS only)
}

// makeCA writes a throwaway CA (ca.crt) into dir and, signed by it, a certificate for
// localhost (dealer.crt, dealer.tls.key), with openssl.
func makeCA(t *testing.T, dir string) string {
	run := func(args ...string) {
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v %s", args, err, out)
		}
	}
	run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=go test CA", "-keyout", "ca.key", "-out", "ca.crt")
	run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "dealer.tls.key", "-out", "dealer.csr")
	os.WriteFile(filepath.Join(dir, "san.ext"), []byte("subjectAltName=DNS:localhost,IP:127.0.0.1\n"), 0o644)
	run("x509", "-req", "-in", "dealer.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
		"-extfile", "san.ext", "-out", "dealer.crt")
	return filepath.Join(dir, "ca.crt")
}

func startDealer(t *testing.T, tls bool) *dealer {
	d := &dealer{dir: t.TempDir()}
	var err error
	if d.operator, err = GenerateKey(); err != nil {
		t.Fatal(err)
	}
	if d.key, err = GenerateKey(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		k, _ := GenerateKey()
		d.parties = append(d.parties, k)
	}
	if err := d.operator.Save(filepath.Join(d.dir, "operator.key")); err != nil {
		t.Fatal(err)
	}
	if err := d.key.Save(filepath.Join(d.dir, "dealer.key")); err != nil {
		t.Fatal(err)
	}
	args := []string{"--listen", "127.0.0.1:0", "--threads", "2",
		"--operator-key", filepath.Join(d.dir, "operator.key.pub"), "--dealer-key", filepath.Join(d.dir, "dealer.key")}
	scheme := "ws://127.0.0.1:"
	if tls {
		d.ca = makeCA(t, d.dir)
		args = append(args, "--tls-cert", filepath.Join(d.dir, "dealer.crt"), "--tls-key", filepath.Join(d.dir, "dealer.tls.key"))
		scheme = "wss://localhost:"
	}
	d.cmd = exec.Command(filepath.Join(buildDir(), "server", "bp-dealer"), args...)
	stdout, _ := d.cmd.StdoutPipe()
	var logs strings.Builder
	d.cmd.Stderr = &logs
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.cmd.Process.Kill(); d.cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on") {
		d.cmd.Wait()
		t.Fatalf("bp-dealer did not start: %q %v\n%s", line, err, logs.String())
	}
	d.url = scheme + strings.TrimSpace(line[strings.LastIndex(line, ":")+1:])
	return d
}

func (d *dealer) session(t *testing.T, roundTimeout time.Duration) string {
	var keys [][32]byte
	for _, k := range d.parties {
		keys = append(keys, k.PublicKey())
	}
	dealerKey := d.key.PublicKey()
	id, err := CreateSession(d.url, SessionRequest{Bits: 64, Parties: 4, Label: "go test", RoundTimeout: roundTimeout,
		AllowedParties: keys}, &Options{Identity: d.operator, DealerKey: &dealerKey, CAFile: d.ca})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

var values = []uint64{1000000, ^uint64(0), 0, 42424242}

func (d *dealer) join(ctx context.Context, session string, i int) (*JoinResult, error) {
	dealerKey := d.key.PublicKey()
	return JoinAndProve(ctx, d.url, session, values[i], nil,
		&Options{Identity: d.parties[i], DealerKey: &dealerKey, Timeout: 30 * time.Second})
}

// joinAll runs parties 0..count-1 as goroutines and returns their results and errors.
func (d *dealer) joinAll(session string, count int) ([]*JoinResult, []error) {
	results := make([]*JoinResult, count)
	errs := make([]error, count)
	var wg sync.WaitGroup
	for i := 0; i < count; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = d.join(context.Background(), session, i)
		}(i)
	}
	wg.Wait()
	return results, errs
}

func TestFourPartiesAsGoroutines(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 0)
	results, errs := d.joinAll(session, 4)
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("party %d: %v", i, errs[i])
		}
		if string(results[i].Proof) != string(results[0].Proof) || results[i].Position != i {
			t.Fatalf("party %d got another proof or position %d", i, results[i].Position)
		}
	}
	r := results[0]
	if err := Verify(r.Proof, r.Commitments, r.Bits, r.Label); err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	json.Unmarshal([]byte(r.JSON), &fields)
	var commitments []string
	for _, c := range fields["commitments"].([]any) {
		commitments = append(commitments, c.(string))
	}
	dealerKey := d.key.PublicKey()
	out, err := exec.Command(filepath.Join(buildDir(), "tools", "bp"), "verify", "--bits", "64",
		"--commitments", strings.Join(commitments, ","), "--proof", fields["proof"].(string), "--label", r.Label,
		"--session", r.Session, "--dealer-key", hex.EncodeToString(dealerKey[:]),
		"--signature", hex.EncodeToString(r.DealerSignature[:])).CombinedOutput()
	if err != nil {
		t.Fatalf("bp verify: %v %s", err, out)
	}
}

func TestDropoutIsBlamed(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 1500*time.Millisecond)
	_, errs := d.joinAll(session, 3)
	for i, err := range errs {
		var e *Error
		if !errors.As(err, &e) || e.Kind != Aborted || len(e.Blamed) != 1 || e.Blamed[0] != 3 {
			t.Fatalf("party %d: %v", i, err)
		}
	}
}

func TestQuorumSessionProvesForThePartiesWhoCame(t *testing.T) {
	d := startDealer(t, false)
	var keys [][32]byte
	for _, k := range d.parties {
		keys = append(keys, k.PublicKey())
	}
	dealerKey := d.key.PublicKey()
	session, err := CreateSession(d.url, SessionRequest{Bits: 64, Parties: 4, Label: "go quorum", AllowedParties: keys,
		MinParties: 2, JoinWindow: time.Second}, &Options{Identity: d.operator, DealerKey: &dealerKey})
	if err != nil {
		t.Fatal(err)
	}
	results, errs := d.joinAll(session, 3)
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("party %d: %v", i, errs[i])
		}
		if string(results[i].Proof) != string(results[0].Proof) || results[i].Position != i {
			t.Fatalf("party %d got another proof or position %d", i, results[i].Position)
		}
	}
	if !strings.Contains(results[0].Label, "parties=3") {
		t.Fatalf("the label is not the set's: %s", results[0].Label)
	}
	if err := Verify(results[0].Proof, results[0].Commitments, 64, results[0].Label); err != nil {
		t.Fatal(err)
	}
}

func TestWrongDealerKey(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 0)
	var wrong [32]byte
	_, err := JoinAndProve(context.Background(), d.url, session, 1, nil, &Options{Identity: d.parties[0], DealerKey: &wrong})
	var e *Error
	if !errors.As(err, &e) || e.Kind != MaliciousDealer {
		t.Fatalf("wrong dealer key: %v", err)
	}
}

// A dealer's refusal of the request says its kind: a key the session does not list, a
// session nobody created.
func TestRefusalsSayTheirKind(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 0)
	stranger, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	dealerKey := d.key.PublicKey()
	_, err = JoinAndProve(context.Background(), d.url, session, 1, nil,
		&Options{Identity: stranger, DealerKey: &dealerKey, Timeout: 10 * time.Second})
	var e *Error
	if !errors.As(err, &e) || e.Kind != NotAllowed || !strings.Contains(e.Message, "not allowed in the session") {
		t.Fatalf("a key the session does not list: %v", err)
	}
	_, err = JoinAndProve(context.Background(), d.url, strings.Repeat("a", 32), 1, nil,
		&Options{Identity: d.parties[0], DealerKey: &dealerKey, Timeout: 10 * time.Second})
	if !errors.As(err, &e) || e.Kind != NoSuchSession {
		t.Fatalf("a session nobody created: %v", err)
	}
}

// CreateSessionContext creates under a live context and says why a dead one ended.
func TestCreateSessionTakesAContext(t *testing.T) {
	d := startDealer(t, false)
	dealerKey := d.key.PublicKey()
	req := SessionRequest{Bits: 8, Parties: 1, Label: "go context", AllowedParties: [][32]byte{d.parties[0].PublicKey()}}
	opts := &Options{Identity: d.operator, DealerKey: &dealerKey}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if id, err := CreateSessionContext(ctx, d.url, req, opts); err != nil || len(id) != 32 {
		t.Fatalf("create under a live context: %q %v", id, err)
	}
	dead, stop := context.WithCancel(context.Background())
	stop()
	_, err := CreateSessionContext(dead, d.url, req, opts)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Cancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("create under a cancelled context: %v", err)
	}
}

// OnEvent gets what a join does, from libbp's thread.
func TestAJoinReportsItsEvents(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 0)
	dealerKey := d.key.PublicKey()
	var mu sync.Mutex
	events := map[int][]Event{}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			opts := &Options{Identity: d.parties[i], DealerKey: &dealerKey, Timeout: 30 * time.Second,
				OnEvent: func(e Event) {
					mu.Lock()
					defer mu.Unlock()
					events[i] = append(events[i], e)
				}}
			if _, err := JoinAndProve(context.Background(), d.url, session, uint64(i), nil, opts); err != nil {
				t.Errorf("party %d: %v", i, err)
			}
		}(i)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i := 0; i < 4; i++ {
		got := events[i]
		if len(got) < 4 || got[0].Kind != EventConnecting || got[len(got)-1].Kind != EventDone || got[len(got)-1].Detail != "ok" {
			t.Fatalf("party %d's events: %+v", i, got)
		}
		answered := 0
		for _, e := range got {
			if e.Kind == EventAnswered {
				answered++
			}
		}
		if answered != 2 {
			t.Fatalf("party %d answered %d rounds: %+v", i, answered, got)
		}
	}
}

func TestCertificateFromAnotherCA(t *testing.T) {
	d := startDealer(t, true)
	session := d.session(t, 0)
	other := makeCA(t, t.TempDir())
	_, err := JoinAndProve(context.Background(), d.url, session, 1, nil,
		&Options{Identity: d.parties[0], CAFile: other, Timeout: 10 * time.Second})
	var e *Error
	if !errors.As(err, &e) || e.Kind != Transport {
		t.Fatalf("another CA: %v", err)
	}
}

func TestContextCancelsTheJoin(t *testing.T) {
	d := startDealer(t, false)
	session := d.session(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.join(ctx, session, 0)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Cancelled {
		t.Fatalf("cancelled join: %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a join whose context's deadline passed: errors.Is(err, context.DeadlineExceeded) is false (%v)", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("cancel took %v", time.Since(start))
	}
}

func TestBatchOfBoundedValuesInOneSeat(t *testing.T) {
	d := startDealer(t, false)
	keys := [][32]byte{d.parties[0].PublicKey(), d.parties[1].PublicKey()}
	bounds := []Bounds{{Min: 10, Max: 1000, HasMax: true}, {Min: 10, Max: 1000, HasMax: true}, {Min: 7}}
	dealerKey := d.key.PublicKey()
	session, err := CreateSession(d.url, SessionRequest{Bits: 16, Parties: 2, Label: "go batch",
		AllowedParties: keys, ValuesPerParty: []uint32{2, 1}, Bounds: bounds},
		&Options{Identity: d.operator, DealerKey: &dealerKey, CAFile: d.ca})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]*JoinResult, 2)
	errs := make([]error, 2)
	// Each party states what it proves: the session's bit size and its own values' bounds.
	statements := []Statement{{Bits: 16, Bounds: bounds[:2]}, {Bits: 16, Bounds: bounds[2:]}}
	for i, vs := range [][]uint64{{10, 999}, {7}} {
		wg.Add(1)
		go func(i int, vs []uint64) {
			defer wg.Done()
			results[i], errs[i] = JoinStatementAndProve(context.Background(), d.url, session, vs, nil, statements[i],
				&Options{Identity: d.parties[i], DealerKey: &dealerKey, Timeout: 30 * time.Second})
		}(i, vs)
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("party %d: %v", i, errs[i])
		}
	}
	if results[0].PositionCount != 4 || results[1].Position != 4 || results[1].PositionCount != 1 {
		t.Fatalf("positions: %d+%d and %d+%d", results[0].Position, results[0].PositionCount,
			results[1].Position, results[1].PositionCount)
	}
	if string(results[0].Proof) != string(results[1].Proof) || !strings.Contains(results[0].Label, "bounds=10..1000,10..1000,7..") {
		t.Fatalf("another proof, or a label without the bounds: %s", results[0].Label)
	}
	// A value outside the bounds it insists on is refused before the library connects.
	_, err = JoinValuesAndProve(context.Background(), d.url, session, []uint64{5}, nil, []Bounds{{Min: 7}}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Refused {
		t.Fatalf("want a Refused error, got %v", err)
	}
}

// A party states its bit size and bounds: a seat of other terms is refused before it commits,
// with the same error whatever its value, and a value outside its own statement never connects.
func TestASeatOfOtherTermsIsRefusedAlikeWhateverTheValue(t *testing.T) {
	d := startDealer(t, false)
	dealerKey := d.key.PublicKey()
	narrow := func() string {
		id, err := CreateSession(d.url, SessionRequest{Bits: 8, Parties: 1, Label: "narrow",
			AllowedParties: [][32]byte{d.parties[0].PublicKey()}}, &Options{Identity: d.operator, DealerKey: &dealerKey})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	opts := &Options{Identity: d.parties[0], DealerKey: &dealerKey, Timeout: 10 * time.Second}
	var messages []string
	for _, value := range []uint64{5, 300} { // a withdrawal ends its session: one each
		_, err := JoinAndProve(context.Background(), d.url, narrow(), value, nil, opts)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Refused {
			t.Fatalf("value %d: want Refused, got %v", value, err)
		}
		messages = append(messages, e.Message)
	}
	if messages[0] != messages[1] || !strings.Contains(messages[0], "bit size is 8") {
		t.Fatalf("the refusals differ or do not name the bit size: %q", messages)
	}
	_, err := JoinStatementAndProve(context.Background(), d.url, narrow(), []uint64{300}, nil, Statement{Bits: 8}, opts)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Refused {
		t.Fatalf("a value over its own 2^8: want Refused, got %v", err)
	}
}

func TestGadgetSessionGivesOneR1CSProofAndRefusesAnotherGadget(t *testing.T) {
	d := startDealer(t, false)
	dealerKey := d.key.PublicKey()
	keys := [][32]byte{d.parties[0].PublicKey(), d.parties[1].PublicKey()}
	const gadgets = "shuffle:2;range:16"
	session, err := CreateSession(d.url, SessionRequest{Parties: 2, Label: "go gadgets", AllowedParties: keys,
		Gadgets: gadgets}, &Options{Identity: d.operator, DealerKey: &dealerKey})
	if err != nil {
		t.Fatal(err)
	}
	opts := func(i int) *Options {
		return &Options{Identity: d.parties[i], DealerKey: &dealerKey, Timeout: 30 * time.Second}
	}
	// Seat 1 is range:16: a party stating range:8 is refused, the same whatever its value.
	var reasons []string
	for _, value := range []uint64{5, 200} {
		_, err := JoinGadget(context.Background(), d.url, session, "range:8", []uint64{value}, nil, opts(1))
		var e *Error
		if !errors.As(err, &e) || e.Kind != Aborted {
			t.Fatalf("another gadget: %v", err)
		}
		reasons = append(reasons, e.Message)
	}
	if reasons[0] != reasons[1] || !strings.Contains(reasons[0], "the party states range:8") {
		t.Fatalf("refusals %q", reasons)
	}
	results := make([]*JoinResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, statement := range []struct {
		gadget string
		values []uint64
	}{{"shuffle:2", []uint64{7, 8, 8, 7}}, {"range:16", []uint64{65535}}} {
		wg.Add(1)
		go func(i int, gadget string, values []uint64) {
			defer wg.Done()
			results[i], errs[i] = JoinGadget(context.Background(), d.url, session, gadget, values, nil, opts(i))
		}(i, statement.gadget, statement.values)
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("seat %d: %v", i, errs[i])
		}
	}
	r := results[0]
	if string(results[1].Proof) != string(r.Proof) || results[1].Position != 1 || r.Gadgets != gadgets ||
		len(r.Commitments) != 5 {
		t.Fatalf("results differ: %+v", results)
	}
	if err := R1CSVerify(r.Gadgets, r.Commitments, r.Proof, r.Label); err != nil {
		t.Fatal(err)
	}
}
