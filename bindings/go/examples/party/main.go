// One party of a session, from Go: join with a key and a value, print the result line.
//
//	party DEALER_URL SESSION_ID VALUE KEY_FILE DEALER_KEY_HEX [CA_FILE]
//
// VALUE is one value (a range session), or GADGET=V1,V2,... (a gadget session: the gadget
// this party proves, "shuffle:2=3,9,9,3", and its values).
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	bp "bpaggregation"
)

func main() {
	if len(os.Args) < 6 {
		fmt.Fprintln(os.Stderr, "usage: party DEALER_URL SESSION_ID VALUE KEY_FILE DEALER_KEY_HEX [CA_FILE]")
		os.Exit(64)
	}
	gadget, valueText, isGadget := strings.Cut(os.Args[3], "=")
	if !isGadget {
		valueText = gadget
	}
	var values []uint64
	for _, text := range strings.Split(valueText, ",") {
		v, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad value:", err)
			os.Exit(64)
		}
		values = append(values, v)
	}
	key, err := bp.LoadKey(os.Args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var dealerKey [32]byte
	if b, err := hex.DecodeString(os.Args[5]); err != nil || len(b) != 32 {
		fmt.Fprintln(os.Stderr, "bad dealer key")
		os.Exit(64)
	} else {
		copy(dealerKey[:], b)
	}
	opts := &bp.Options{Identity: key, DealerKey: &dealerKey, Timeout: time.Minute}
	if len(os.Args) > 6 {
		opts.CAFile = os.Args[6]
	}
	// Ctrl-C cancels the join (the connection is closed, the dealer sees us leave).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var result *bp.JoinResult
	if isGadget {
		result, err = bp.JoinGadget(ctx, os.Args[1], os.Args[2], gadget, values, nil, opts)
	} else {
		result, err = bp.JoinAndProve(ctx, os.Args[1], os.Args[2], values[0], nil, opts)
	}
	var e *bp.Error
	if errors.As(err, &e) {
		fmt.Fprintln(os.Stderr, e.Message) // one line: the kind, the reason, blamed=[...]
		if e.Kind == bp.Aborted {
			os.Exit(2)
		}
		os.Exit(1)
	}
	check := func() error { return bp.Verify(result.Proof, result.Commitments, result.Bits, result.Label) }
	if isGadget {
		check = func() error { return bp.R1CSVerify(result.Gadgets, result.Commitments, result.Proof, result.Label) }
	}
	if err := check(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(result.JSON)
}
