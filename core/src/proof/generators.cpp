#include "bp/generators.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "bp/keccak.hpp"
#include "bp/msm.hpp"

namespace bp {
namespace {

// Appends `count` points of the chain SHAKE256("GeneratorsChain" ‖ label) to out.
void generators_chain(std::span<const uint8_t> label, size_t count, RistrettoPoint* out) {
  static constexpr std::string_view kDomain = "GeneratorsChain";
  Shake256 xof;
  xof.update({reinterpret_cast<const uint8_t*>(kDomain.data()), kDomain.size()});
  xof.update(label);
  std::array<uint8_t, 64> uniform;
  for (size_t i = 0; i < count; ++i) {
    xof.squeeze(uniform);
    out[i] = RistrettoPoint::from_uniform_bytes(uniform);
  }
}

}  // namespace

namespace {

struct DefaultPedersen {
  RistrettoPoint B, B_blinding;
  std::vector<VartimeBaseTable> tables;  // B, B̃
  std::vector<CtBaseTable> ct_tables;    // B, B̃
  std::unique_ptr<CtCombTable> B_comb, B_blinding_comb;

  DefaultPedersen() : B(RistrettoPoint::basepoint()) {
    B_blinding = RistrettoPoint::from_uniform_bytes(sha3_512(B.compress().bytes));
    const RistrettoPoint both[2] = {B, B_blinding};
    tables = VartimeBaseTable::build(both);
    ct_tables = CtBaseTable::build(both);
    B_comb = CtCombTable::build(B);
    B_blinding_comb = CtCombTable::build(B_blinding);
  }
};

// Never destroyed: a thread still proving while the process exits may read it.
const DefaultPedersen& default_pedersen() {
  static const auto* instance = new DefaultPedersen;
  return *instance;
}

}  // namespace

PedersenGens::PedersenGens() : B(default_pedersen().B), B_blinding(default_pedersen().B_blinding) {}

const VartimeBaseTable& PedersenGens::B_table() const { return default_pedersen().tables[0]; }
const VartimeBaseTable& PedersenGens::B_blinding_table() const { return default_pedersen().tables[1]; }
const CtBaseTable& PedersenGens::B_ct_table() const { return default_pedersen().ct_tables[0]; }
const CtBaseTable& PedersenGens::B_blinding_ct_table() const { return default_pedersen().ct_tables[1]; }
const CtCombTable& PedersenGens::B_ct_comb() const { return *default_pedersen().B_comb; }
const CtCombTable& PedersenGens::B_blinding_ct_comb() const { return *default_pedersen().B_blinding_comb; }

RistrettoPoint PedersenGens::commit(const Scalar& value, const Scalar& blinding) const {
  const Scalar scalars[2] = {value, blinding};
  const CtCombTable* combs[2] = {&B_ct_comb(), &B_blinding_ct_comb()};
  return multiscalar_mul(scalars, combs);
}

BulletproofGens::BulletproofGens(size_t gens_capacity, size_t party_capacity)
    : gens_capacity_(gens_capacity),
      party_capacity_(party_capacity),
      G_(gens_capacity * party_capacity),
      H_(gens_capacity * party_capacity),
      tables_(std::make_unique<Tables>(party_capacity)) {
  for (size_t j = 0; j < party_capacity; ++j) {
    std::array<uint8_t, 5> label = {'G', static_cast<uint8_t>(j), static_cast<uint8_t>(j >> 8),
                                    static_cast<uint8_t>(j >> 16), static_cast<uint8_t>(j >> 24)};
    generators_chain(label, gens_capacity, &G_[j * gens_capacity]);
    label[0] = 'H';
    generators_chain(label, gens_capacity, &H_[j * gens_capacity]);
  }
}

std::vector<RistrettoPoint> BulletproofGens::gather(const std::vector<RistrettoPoint>& all, size_t n, size_t m) const {
  std::vector<RistrettoPoint> out;
  out.reserve(n * m);
  for (size_t j = 0; j < m; ++j)
    out.insert(out.end(), all.begin() + j * gens_capacity_, all.begin() + j * gens_capacity_ + n);
  return out;
}

}  // namespace bp

namespace bp {

template <class Table>
const BulletproofGens::PartyTables<Table>& BulletproofGens::party_tables(PartyTables<Table>* kind, size_t party) const {
  PartyTables<Table>& t = kind[party];
  std::call_once(t.built, [&] {
    t.G = Table::build(G(party, gens_capacity_));
    t.H = Table::build(H(party, gens_capacity_));
    t.ready.store(true, std::memory_order_release);
  });
  return t;
}

template <class Table>
std::vector<const Table*> BulletproofGens::gather_tables(PartyTables<Table>* kind, bool h, size_t first_party,
                                                         size_t parties, size_t n) const {
  std::vector<const Table*> out;
  out.reserve(parties * n);
  for (size_t j = first_party; j < first_party + parties; ++j) {
    const auto& t = party_tables(kind, j);
    const std::vector<Table>& of = h ? t.H : t.G;
    for (size_t i = 0; i < n; ++i) out.push_back(&of[i]);
  }
  return out;
}

std::vector<const VartimeBaseTable*> BulletproofGens::G_tables(size_t j, size_t n) const {
  return gather_tables(tables_->vartime.get(), false, j, 1, n);
}
std::vector<const VartimeBaseTable*> BulletproofGens::H_tables(size_t j, size_t n) const {
  return gather_tables(tables_->vartime.get(), true, j, 1, n);
}
std::vector<const VartimeBaseTable*> BulletproofGens::G_tables_aggregated(size_t n, size_t m) const {
  return gather_tables(tables_->vartime.get(), false, 0, m, n);
}
std::vector<const VartimeBaseTable*> BulletproofGens::H_tables_aggregated(size_t n, size_t m) const {
  return gather_tables(tables_->vartime.get(), true, 0, m, n);
}

std::vector<const CtBaseTable*> BulletproofGens::G_ct_tables(size_t j, size_t n) const {
  return gather_tables(tables_->ct.get(), false, j, 1, n);
}
std::vector<const CtBaseTable*> BulletproofGens::H_ct_tables(size_t j, size_t n) const {
  return gather_tables(tables_->ct.get(), true, j, 1, n);
}

std::vector<const ShiftedBaseTable*> BulletproofGens::G_shifted_tables(size_t j, size_t n) const {
  return gather_tables(tables_->shifted.get(), false, j, 1, n);
}
std::vector<const ShiftedBaseTable*> BulletproofGens::H_shifted_tables(size_t j, size_t n) const {
  return gather_tables(tables_->shifted.get(), true, j, 1, n);
}
std::vector<const ShiftedBaseTable*> BulletproofGens::G_shifted_tables_aggregated(size_t n, size_t m) const {
  return gather_tables(tables_->shifted.get(), false, 0, m, n);
}
std::vector<const ShiftedBaseTable*> BulletproofGens::H_shifted_tables_aggregated(size_t n, size_t m) const {
  return gather_tables(tables_->shifted.get(), true, 0, m, n);
}

const BulletproofGens& shared_generators(size_t gens_capacity, size_t party_capacity) {
  static auto* mutex = new std::mutex;
  static auto* made = new std::map<std::pair<size_t, size_t>, std::unique_ptr<const BulletproofGens>>;
  std::lock_guard lock(*mutex);
  auto& slot = (*made)[{gens_capacity, party_capacity}];
  if (!slot) slot = std::make_unique<const BulletproofGens>(gens_capacity, party_capacity);
  return *slot;
}

const PedersenGens& shared_pedersen() {
  static const auto* pc = new PedersenGens;
  return *pc;
}

bool BulletproofGens::tables_pay_for(size_t n, size_t m) const {
  std::lock_guard lock(tables_->shapes_mutex);
  auto& seen = tables_->shapes_asked;
  if (std::find(seen.begin(), seen.end(), std::pair(n, m)) != seen.end()) return true;
  seen.emplace_back(n, m);
  return false;
}

size_t BulletproofGens::table_bytes() const {
  size_t bytes = 0;
  const auto add = [&](const auto* kind, size_t table_size) {
    for (size_t j = 0; j < party_capacity_; ++j)
      if (kind[j].ready.load(std::memory_order_acquire)) bytes += (kind[j].G.size() + kind[j].H.size()) * table_size;
  };
  add(tables_->vartime.get(), sizeof(VartimeBaseTable));
  add(tables_->ct.get(), sizeof(CtBaseTable));
  add(tables_->shifted.get(), sizeof(ShiftedBaseTable));
  return bytes;
}

}  // namespace bp
