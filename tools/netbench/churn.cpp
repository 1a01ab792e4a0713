#include "churn.hpp"

#include <sodium.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>

#include "bp/random.hpp"
#include "sessions.hpp"

namespace bp::netbench {

namespace {

using std::chrono::milliseconds;

constexpr size_t kBits = 16;
constexpr uint32_t kRoundTimeoutMs = 2000;  // also the join window: a party that never comes costs one

enum class Fate { Honest, NeverJoins, Drops, Withdraws };

Fate draw_fate(double p) {
  if (static_cast<double>(randombytes_uniform(1000000)) >= p * 1e6) return Fate::Honest;
  return static_cast<Fate>(1 + randombytes_uniform(3));
}

struct ChurnSession {
  bool delivered = false;
  size_t excluded = 0;  // parties of the session not in the proof (all of them when there is none)
  double wall_ms = 0;
};

// One session of n parties each failing with probability p; a dropping party ends its join
// at a random moment within `drop_span`.
ChurnSession churn_session(const client::Endpoint& dealer, size_t n, double p, bool successors, milliseconds drop_span,
                           const client::LinkEmulation& link) {
  ChurnSession out;
  const auto t0 = std::chrono::steady_clock::now();
  client::SessionRequest request{kBits, n, "churn", kRoundTimeoutMs, {}, {}};
  if (successors) {
    request.min_parties = static_cast<uint32_t>(n / 2);
    request.join_window_ms = kRoundTimeoutMs;
  }
  auto created = client::create_session(dealer, request);
  if (!created) return out;
  boost::asio::io_context ioc;
  SystemRandom rng;
  std::vector<Fate> fates(n);
  std::vector<std::optional<client::ClientResult<client::PartyOutcome>>> results(n);
  for (size_t j = 0; j < n; ++j) {
    fates[j] = draw_fate(p);
    if (fates[j] == Fate::NeverJoins) continue;
    client::Options options;
    options.timeout = std::chrono::seconds(60);
    if (fates[j] == Fate::Drops) {
      options.timeout = milliseconds(1 + randombytes_uniform(static_cast<uint32_t>(drop_span.count())));
      options.reconnect.attempts = 0;
    }
    if (fates[j] == Fate::Withdraws) options.min_session_parties = n + 1;  // refuses whatever seat it gets
    client::async_join_and_prove(ioc, dealer, created->session_id,
                                 client::PartyValues{{j + 1}, {Scalar::random(rng)}, std::nullopt, kBits}, options,
                                 link, [&results, j](auto r) { results[j] = std::move(r); });
  }
  ioc.run();
  out.wall_ms = ms_since(t0);
  // Delivered: every party that did not fail holds the same proof (each checked it, and the
  // dealer's signature, before returning it).
  std::optional<std::vector<uint8_t>> proof;
  out.delivered = true;
  for (size_t j = 0; j < n; ++j) {
    if (fates[j] != Fate::Honest) continue;
    if (!results[j] || !*results[j]) {
      out.delivered = false;
      continue;
    }
    const auto bytes = (*results[j])->result.proof.to_bytes();
    if (!proof) {
      proof = bytes;
      size_t in_proof = 0;
      for (const auto& c : (*results[j])->result.commitments)
        if (c.bytes != CompressedRistretto{}.bytes) ++in_proof;
      out.excluded = n - in_proof;
    } else if (*proof != bytes) {
      out.delivered = false;
    }
  }
  if (!proof) out.excluded = n;
  return out;
}

}  // namespace

int run_churn_rows(const client::Endpoint& dealer, const std::function<double()>& dealer_cpu_ms, bool quick,
                   const client::LinkEmulation& link) {
  std::printf(
      "churn: n = %zu, each party fails with probability p (never joins, drops at a random moment, or withdraws "
      "its seat, alike); round deadline and join window %u ms; added latency %lld ms per frame\n\n",
      kBits, kRoundTimeoutMs, static_cast<long long>(link.added_latency.count()));
  std::printf(
      "| parties | p | quorum and successors | sessions | delivered | delivered %% | not in the proof, per session | "
      "p50 ms | "
      "p99 ms | dealer CPU ms per session |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<size_t> sizes = {16, 64};
  if (!quick) sizes.push_back(256);
  for (size_t n : sizes) {
    const size_t sessions = quick ? (n <= 16 ? 10 : 3) : (n <= 16 ? 100 : n <= 64 ? 40 : 3);
    milliseconds drop_span{0};
    churn_session(dealer, n, 0, true, drop_span, link);  // warm-up: this size's generator tables
    for (double p : {0.0, 0.01, 0.05}) {
      for (bool successors : {true, false}) {
        if (p == 0.0 && !successors) continue;  // nothing fails: the same session either way
        std::vector<double> walls;
        size_t delivered = 0, excluded = 0;
        const double cpu0 = dealer_cpu_ms();
        for (size_t s = 0; s < sessions; ++s) {
          const auto one = churn_session(dealer, n, p, successors, drop_span, link);
          walls.push_back(one.wall_ms);
          delivered += one.delivered ? 1 : 0;
          excluded += one.excluded;
        }
        const double cpu = (dealer_cpu_ms() - cpu0) / static_cast<double>(sessions);
        // A party that drops does so within twice a fault-free session's p50.
        if (p == 0.0) drop_span = milliseconds(std::max<long>(2, static_cast<long>(2 * quantile(walls, 0.5))));
        std::printf("| %zu | %.0f%% | %s | %zu | %zu | %.1f | %.2f | %.0f | %.0f | %.1f |\n", n, p * 100,
                    successors ? "K = n/2" : "off (all or nothing)", sessions, delivered,
                    100.0 * static_cast<double>(delivered) / static_cast<double>(sessions),
                    static_cast<double>(excluded) / static_cast<double>(sessions), quantile(walls, 0.5),
                    quantile(walls, 0.99), cpu);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace bp::netbench
