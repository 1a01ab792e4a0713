// The fixed generators, derived exactly as the reference implementation derives them.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "bp/precomputed.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp {

// B (the ristretto basepoint) for values and B̃ = hash-to-group(SHA3-512(B)) for blindings.
struct PedersenGens {
  RistrettoPoint B;
  RistrettoPoint B_blinding;

  PedersenGens();
  // value·B + blinding·B̃, constant time.
  RistrettoPoint commit(const Scalar& value, const Scalar& blinding) const;

  // Tables of B and B̃, computed once per process: variable time (public scalars) and
  // constant time (secret scalars).
  const VartimeBaseTable& B_table() const;
  const VartimeBaseTable& B_blinding_table() const;
  const CtBaseTable& B_ct_table() const;
  const CtBaseTable& B_blinding_ct_table() const;
  // Their comb tables: a commitment's constant-time products without doublings.
  const CtCombTable& B_ct_comb() const;
  const CtCombTable& B_blinding_ct_comb() const;
};

// G_{j,i} and H_{j,i} for party j < party_capacity and index i < gens_capacity, each read
// from a SHAKE256 "GeneratorsChain" stream labelled 'G' or 'H' followed by LE32(j).
class BulletproofGens {
 public:
  BulletproofGens(size_t gens_capacity, size_t party_capacity);

  size_t gens_capacity() const { return gens_capacity_; }
  size_t party_capacity() const { return party_capacity_; }

  // Party j's first n generators.
  std::span<const RistrettoPoint> G(size_t j, size_t n) const { return {&G_[j * gens_capacity_], n}; }
  std::span<const RistrettoPoint> H(size_t j, size_t n) const { return {&H_[j * gens_capacity_], n}; }
  // The aggregated vectors G_0[0..n] ‖ ... ‖ G_{m-1}[0..n] (and the same for H).
  std::vector<RistrettoPoint> G_aggregated(size_t n, size_t m) const { return gather(G_, n, m); }
  std::vector<RistrettoPoint> H_aggregated(size_t n, size_t m) const { return gather(H_, n, m); }

  // Tables of the same points, in the same order. Each kind is built party by party on
  // that party's first use (thread-safe) and kept for the life of the generators, so a party
  // proving at its own positions builds its own tables only.
  // Variable time, for public scalars:
  std::vector<const VartimeBaseTable*> G_tables(size_t j, size_t n) const;
  std::vector<const VartimeBaseTable*> H_tables(size_t j, size_t n) const;
  std::vector<const VartimeBaseTable*> G_tables_aggregated(size_t n, size_t m) const;
  std::vector<const VartimeBaseTable*> H_tables_aggregated(size_t n, size_t m) const;
  // Constant time, of party j's first n generators (for the prover's secret scalars):
  std::vector<const CtBaseTable*> G_ct_tables(size_t j, size_t n) const;
  std::vector<const CtBaseTable*> H_ct_tables(size_t j, size_t n) const;
  // Shifted tables (ShiftedBaseTable), for verifications large enough to repay them
  // (shifted_tables_pay; 2.9 KB per generator, 0.36 MiB per party of 64):
  std::vector<const ShiftedBaseTable*> G_shifted_tables(size_t j, size_t n) const;
  std::vector<const ShiftedBaseTable*> H_shifted_tables(size_t j, size_t n) const;
  std::vector<const ShiftedBaseTable*> G_shifted_tables_aggregated(size_t n, size_t m) const;
  std::vector<const ShiftedBaseTable*> H_shifted_tables_aggregated(size_t n, size_t m) const;
  // Bytes held by the tables built so far (zero before any).
  size_t table_bytes() const;

  // Whether a verification over parties 0..m-1's first n generators should read tables
  // rather than the points themselves: from the second time this shape asks. Building a
  // party's tables costs more than one multiplication gains from them (at m = 256, 1.3 s
  // of a 2 s check), so a process that checks one proof of a shape (bp verify, a party
  // checking its own session's proof) never builds them, and a dealer or a verifier builds
  // them once, at its second proof of that shape.
  bool tables_pay_for(size_t n, size_t m) const;

 private:
  template <class Table>
  struct PartyTables {
    std::once_flag built;
    std::atomic<bool> ready{false};
    std::vector<Table> G, H;  // one party's, gens_capacity_ each
  };
  struct Tables {
    explicit Tables(size_t parties)
        : vartime(std::make_unique<PartyTables<VartimeBaseTable>[]>(parties)),
          ct(std::make_unique<PartyTables<CtBaseTable>[]>(parties)),
          shifted(std::make_unique<PartyTables<ShiftedBaseTable>[]>(parties)) {}
    std::unique_ptr<PartyTables<VartimeBaseTable>[]> vartime;
    std::unique_ptr<PartyTables<CtBaseTable>[]> ct;
    std::unique_ptr<PartyTables<ShiftedBaseTable>[]> shifted;
    std::mutex shapes_mutex;
    std::vector<std::pair<size_t, size_t>> shapes_asked;  // tables_pay_for's (n, m) seen
  };
  template <class Table>
  const PartyTables<Table>& party_tables(PartyTables<Table>* kind, size_t party) const;
  template <class Table>
  std::vector<const Table*> gather_tables(PartyTables<Table>* kind, bool h, size_t first_party, size_t parties,
                                          size_t n) const;

  std::vector<RistrettoPoint> gather(const std::vector<RistrettoPoint>& all, size_t n, size_t m) const;

  size_t gens_capacity_;
  size_t party_capacity_;
  std::vector<RistrettoPoint> G_, H_;  // party-major, gens_capacity_ per party
  std::unique_ptr<Tables> tables_;
};

// The process's generators of this size: built on first use (thread-safe), kept with their
// tables for the life of the process and never destroyed (work on another thread may still
// read them while the process exits). The one cache every layer uses: a party's range seats,
// the constraint-system proofs (gens_capacity multipliers, one party) and the C ABI.
const BulletproofGens& shared_generators(size_t gens_capacity, size_t party_capacity);
// The process's Pedersen generators (B, B̃ with their tables), kept the same way.
const PedersenGens& shared_pedersen();

}  // namespace bp
