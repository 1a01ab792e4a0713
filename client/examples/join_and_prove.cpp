// Joining a dealer's session from a backend: the whole client API a party needs.
// Usage: join_and_prove ws[s]://HOST:PORT SESSION_ID VALUE [KEY_FILE]
// KEY_FILE is the party's Ed25519 key from `bp-party keygen` (left out: join anonymously,
// which only a dealer run with --allow-anonymous accepts).
#include <bp/client/party_client.hpp>
#include <bp/hex.hpp>
#include <bp/random.hpp>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s ws[s]://HOST:PORT SESSION_ID VALUE [KEY_FILE]\n", argv[0]);
    return 64;
  }
  const auto dealer = bp::client::parse_endpoint(argv[1]);
  if (!dealer) return 64;
  bp::client::Options options;
  options.timeout = std::chrono::seconds(30);
  if (argc == 5) {
    auto identity = bp::wire::Identity::load(argv[4]);
    if (!identity) {
      std::fprintf(stderr, "%s\n", identity.error().c_str());
      return 1;
    }
    options.identity = std::make_shared<const bp::wire::Identity>(std::move(*identity));
  }
  bp::SystemRandom rng;
  const bp::Scalar blinding = bp::Scalar::random(rng);  // keep it: it opens your commitment
  const auto outcome =
      bp::client::join_and_prove(*dealer, argv[2], std::strtoull(argv[3], nullptr, 10), blinding, options);
  if (!outcome) {
    std::fprintf(stderr, "%s\n", bp::client::describe(outcome.error()).c_str());
    return 1;
  }
  // The dealer's signature (already checked) is what shows later where the proof came from.
  std::printf("seat %zu: a %zu-byte proof over %zu commitments, label \"%s\", signed by dealer %s\n", outcome->position,
              outcome->result.proof.to_bytes().size(), outcome->result.commitments.size(),
              outcome->result.label.c_str(), bp::to_hex(outcome->attestation.dealer_key).c_str());
  return 0;
}
