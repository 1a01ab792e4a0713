package bpaggregation

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
)

// Medians of prove and verify through cgo (n = 64, m = 1 and 4) for the overhead table
// (bindings/bench.sh sets BP_BENCH_MEDIANS); skipped in plain `go test`.
func TestBenchMedians(t *testing.T) {
	if os.Getenv("BP_BENCH_MEDIANS") == "" {
		t.Skip("BP_BENCH_MEDIANS not set")
	}
	for _, m := range []int{1, 4} {
		values := make([]uint64, m)
		blindings := make([][32]byte, m)
		for j := range values {
			values[j] = uint64(j) * 1234567
			blindings[j] = RandomBlinding()
		}
		proof, commitments, err := Prove(values, blindings, 64, "bench")
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []string{"prove", "verify"} {
			var samples []float64
			for i := 0; i < 40; i++ {
				start := time.Now()
				if op == "prove" {
					_, _, err = Prove(values, blindings, 64, "bench")
				} else {
					err = Verify(proof, commitments, 64, "bench")
				}
				if err != nil {
					t.Fatal(err)
				}
				samples = append(samples, float64(time.Since(start).Nanoseconds())/1000)
			}
			sort.Float64s(samples)
			fmt.Printf("MEDIAN %s %d %.1f\n", op, m, (samples[19]+samples[20])/2)
		}
	}
}
