// bp bench --party: what a dealer can make one party spend, at most. Each row is the
// heaviest step a party takes for the largest session the limits admit
// (bp/mpc/limits.hpp), run cold in a process of its own (the generators built for it, as a
// party's first session of that size builds them): its time, and the peak memory of that
// process, the party's figure for one session. SECURITY.md's table is this one.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../common/machine.hpp"
#include "bench_proofs.hpp"
#include "bp/backend.hpp"
#include "bp/generators.hpp"
#include "bp/json.hpp"
#include "bp/mpc/limits.hpp"
#include "bp/mpc/party.hpp"
#include "bp/mpc/r1cs.hpp"
#include "bp/mpc/session.hpp"
#include "bp/r1cs_gadget_list.hpp"
#include "bp/range_proof.hpp"
#include "bp/transcript.hpp"

namespace bp::cli {

namespace {

// The largest gadget session: 4,096 multipliers, 1,024 commitments, 66 seats; the party
// proves range:32 in seat 0.
GadgetList largest_gadget_list() {
  std::string text = "range:32";
  for (int k = 0; k < 63; ++k) text += ";range:64";
  text += ";geq:32;sum:957";
  return *GadgetList::parse(text);
}

// Values that satisfy it: ones, and the sum's total.
std::vector<uint64_t> gadget_values(const GadgetList& list) {
  std::vector<uint64_t> values(list.commitments(), 1);
  values.back() = 957;
  return values;
}

struct Measured {
  double ms = 0;
  double peak_mib = 0;
  bool ok = false;
};

// `step` in a child process: its wall time and the child's peak resident memory.
Measured in_own_process(const std::function<bool()>& step) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    const auto start = std::chrono::steady_clock::now();
    Measured m;
    m.ok = step();
    m.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    m.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
    if (write(fds[1], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  Measured m;
  if (child < 0 || read(fds[0], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) m = {};
  close(fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return m;
}

// A proof made in a child, so this process builds nothing the measured children inherit.
template <class Make>
std::vector<uint8_t> made_in_child(Make make) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    const std::vector<uint8_t> bytes = make();
    size_t at = 0;
    while (at < bytes.size()) {
      const ssize_t n = write(fds[1], bytes.data() + at, bytes.size() - at);
      if (n <= 0) _exit(1);
      at += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::vector<uint8_t> out;
  uint8_t buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) out.insert(out.end(), buffer, buffer + n);
  close(fds[0]);
  if (child > 0) waitpid(child, nullptr, 0);
  return out;
}

// Commitments (32 bytes each) then the proof.
std::vector<uint8_t> join(const std::vector<CompressedRistretto>& commitments, const std::vector<uint8_t>& proof) {
  std::vector<uint8_t> out;
  for (const auto& c : commitments) out.insert(out.end(), c.bytes.begin(), c.bytes.end());
  out.insert(out.end(), proof.begin(), proof.end());
  return out;
}
std::vector<CompressedRistretto> commitments_of(const std::vector<uint8_t>& bytes, size_t count) {
  std::vector<CompressedRistretto> out(count);
  for (size_t i = 0; i < count && 32 * (i + 1) <= bytes.size(); ++i)
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(32 * i), 32, out[i].bytes.begin());
  return out;
}

struct PartyRow {
  std::string session, step;
  Measured measured;
};

}  // namespace

int print_party_rows(bool json) {
  const GadgetList list = largest_gadget_list();
  const std::string label = mpc::gadget_session_label(std::string(32, 'a'), list.text(), "bench");
  const auto gadget_seat = [&] {
    auto seat = mpc::R1CSPartyAwaitingSeat::create(list.items()[0], {5}, {Scalar::from_u64(9)});
    return seat.ok() && std::move(*seat).take_seat(list, 0, label).ok();
  };
  const auto gadget_proof = made_in_child([&] {
    const std::vector<uint64_t> values = gadget_values(list);
    const std::vector<Scalar> blindings(values.size(), Scalar::from_u64(3));
    auto proved = prove_gadget_list(list, label, values, blindings);
    return proved ? join(proved->commitments, proved->proof.to_bytes()) : std::vector<uint8_t>{};
  });
  const auto gadget_check = [&](int times) {
    const size_t nc = list.commitments();
    if (gadget_proof.size() < 32 * nc) return false;
    auto proof = R1CSProof::from_bytes(std::span(gadget_proof).subspan(32 * nc));
    bool ok = proof.ok();
    for (int k = 0; k < times && ok; ++k)
      ok = verify_gadget_list(list, label, commitments_of(gadget_proof, nc), *proof).ok();
    return ok;
  };

  constexpr size_t kBits = 64, kPositions = mpc::kMaxPositions;
  const mpc::SessionParams params{kBits, kPositions,
                                  mpc::session_transcript_label(std::string(32, 'a'), kBits, kPositions, "bench", {})};
  const auto range_seat = [&](size_t positions) {
    const BulletproofGens gens(kBits, params.padded_m());
    const PedersenGens pc;
    const Witness w = random_witness(kBits, positions);
    std::vector<mpc::PartyAwaitingBitChallenge> states;
    for (size_t k = 0; k < positions; ++k) {
      auto party = mpc::PartyAwaitingPosition::create(gens, pc, params, w.values[k], w.blindings[k]);
      if (!party) return false;
      auto next = std::move(*party).assign_position(k);
      if (!next) return false;
      states.push_back(std::move(next->first));
    }
    return true;
  };
  const auto range_proof = made_in_child([&] {
    const BulletproofGens gens(kBits, kPositions);
    const PedersenGens pc;
    const Witness w = random_witness(kBits, kPositions);
    Transcript t(params.label);
    auto proved = RangeProof::prove_multiple(gens, pc, t, w.values, w.blindings, kBits);
    return proved ? join(proved->commitments, proved->proof.to_bytes()) : std::vector<uint8_t>{};
  });
  const auto range_check = [&](int times) {
    const BulletproofGens gens(kBits, kPositions);
    const PedersenGens pc;
    if (range_proof.size() < 32 * kPositions) return false;
    auto proof = RangeProof::from_bytes(std::span(range_proof).subspan(32 * kPositions));
    bool ok = proof.ok();
    for (int k = 0; k < times && ok; ++k) {
      Transcript t(params.label);
      ok = proof->verify_multiple(gens, pc, t, commitments_of(range_proof, kPositions), kBits).ok();
    }
    return ok;
  };

  const std::string gadget_session = "gadget: 4,096 multipliers, 1,024 commitments, 66 seats";
  const std::string range_session = "range: n = 64, 256 positions";
  std::vector<PartyRow> rows = {
      {gadget_session, "its seat (slice, first phase)", in_own_process(gadget_seat)},
      {gadget_session, "the result's check", in_own_process([&] { return gadget_check(1); })},
      {gadget_session, "the result's check, a second session of the size (tables built, kept)",
       in_own_process([&] { return gadget_check(2); })},
      {range_session, "a seat of 1 position (generators, commitment)", in_own_process([&] { return range_seat(1); })},
      {range_session, "a seat of all 256 positions", in_own_process([&] { return range_seat(kPositions); })},
      {range_session, "the result's check", in_own_process([&] { return range_check(1); })},
      {range_session, "the result's check, a second session of the size (tables built, kept)",
       in_own_process([&] { return range_check(2); })},
  };
  if (!json) {
    std::printf("%s\n\n", tools::machine_lines().c_str());
    std::printf("| session | party's step, cold | ms | peak MiB |\n|---|---|---:|---:|\n");
  }
  int status = 0;
  for (const auto& r : rows) {
    if (!r.measured.ok) status = 1;
    if (json) {
      std::printf("%s\n", JsonObject()
                              .text("op", "party_step")
                              .text("session", r.session)
                              .text("step", r.step)
                              .text("backend", backend_name(active_backend()))
                              .number("ms", r.measured.ms, 1)
                              .number("peak_mib", r.measured.peak_mib, 1)
                              .str()
                              .c_str());
      continue;
    }
    std::printf("| %s | %s | %.0f | %.0f |%s\n", r.session.c_str(), r.step.c_str(), r.measured.ms, r.measured.peak_mib,
                r.measured.ok ? "" : " FAILED");
  }
  return status;
}

}  // namespace bp::cli
