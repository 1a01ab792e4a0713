// Many sessions from one Go process: one party, with one key, in each session whose id is a
// line of SESSIONS_FILE, all joined at once (a goroutine each), as an exchange backend would
// run them. Prints one line per session, "ID PROOF_HEX", and exits 1 if any join failed.
//
//	many DEALER_URL SESSIONS_FILE VALUE KEY_FILE
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	bp "bpaggregation"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: many DEALER_URL SESSIONS_FILE VALUE KEY_FILE")
		os.Exit(64)
	}
	value, err := strconv.ParseUint(os.Args[3], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad value:", err)
		os.Exit(64)
	}
	file, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var ids []string
	for lines := bufio.NewScanner(file); lines.Scan(); {
		ids = append(ids, lines.Text())
	}
	file.Close()
	// The library's defaults but the deadline: a dealer admitting this process's new
	// connections a hundred a second answers the rest "retry after", which the join waits out.
	key, err := bp.LoadKey(os.Args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer key.Close()
	opts := &bp.Options{Identity: key, Timeout: 2 * time.Minute}
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for _, id := range ids {
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			result, err := bp.JoinAndProve(ctx, os.Args[1], id, value, nil, opts)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				fmt.Fprintf(os.Stderr, "%s: %v\n", id, err)
				return
			}
			fmt.Printf("%s %s\n", id, hex.EncodeToString(result.Proof))
		}(id)
	}
	wg.Wait()
	if failed != 0 {
		fmt.Fprintf(os.Stderr, "%d of %d joins failed\n", failed, len(ids))
		os.Exit(1)
	}
}
