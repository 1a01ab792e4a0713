// An exchange backend proving a batch of balances in one session: one party, one key, one
// seat of many positions, each balance shown to lie within public bounds [MIN, MAX].
// Usage: prove_balances ws[s]://HOST:PORT SESSION_ID KEY_FILE MIN MAX BALANCE...
// The operator opens the session for this key with as many values and the same bounds:
//   bp-party create-session ... --parties 1 --values-per-party K --min MIN --max MAX --allow KEY_FILE.pub
// Prints the result as `bp-party join` does: bp verify --min MIN --max MAX checks it.
#include <bp/client/party_client.hpp>
#include <bp/random.hpp>
#include <bp/wire/json.hpp>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s ws[s]://HOST:PORT SESSION_ID KEY_FILE MIN MAX BALANCE...\n", argv[0]);
    return 64;
  }
  const auto dealer = bp::client::parse_endpoint(argv[1]);
  if (!dealer) return 64;
  auto identity = bp::wire::Identity::load(argv[3]);
  if (!identity) {
    std::fprintf(stderr, "%s\n", identity.error().c_str());
    return 1;
  }
  bp::client::Options options;
  options.timeout = std::chrono::seconds(60);
  options.identity = std::make_shared<const bp::wire::Identity>(std::move(*identity));

  // The bounds the exchange insists on: a session stating others is refused, and a balance
  // outside them is refused before anything is sent.
  const bp::ValueBounds bounds{std::strtoull(argv[4], nullptr, 10), std::strtoull(argv[5], nullptr, 10)};
  bp::client::PartyValues batch;
  batch.bounds.emplace();
  // The statement's bit size: the least that covers MAX - MIN, as the operator opens such a
  // session (bp-party create-session --bits); a seat of another is refused.
  const bp::ValueBounds one[] = {bounds};
  const auto covering = bp::bits_covering(one);
  if (!covering) {
    std::fprintf(stderr, "MIN is above MAX\n");
    return 2;
  }
  batch.bits = *covering;
  bp::SystemRandom rng;
  for (int i = 6; i < argc; ++i) {
    batch.values.push_back(std::strtoull(argv[i], nullptr, 10));
    batch.blindings.push_back(bp::Scalar::random(rng));  // a real backend stores each: it opens V
    batch.bounds->push_back(bounds);
  }
  const size_t balances = batch.values.size();
  const auto outcome = bp::client::join_and_prove(*dealer, argv[2], std::move(batch), options);
  if (!outcome) {
    std::fprintf(stderr, "%s\n", bp::client::describe(outcome.error()).c_str());
    return 1;
  }
  std::fprintf(stderr, "%zu balances at positions %zu..%zu of a %zu-position proof, signed by the dealer\n", balances,
               outcome->position, outcome->position + outcome->positions - 1, outcome->result.commitments.size());
  std::printf("%s\n", bp::wire::result_json(outcome->result, outcome->position, outcome->attestation, outcome->bounds,
                                            outcome->positions)
                          .c_str());
  return 0;
}
