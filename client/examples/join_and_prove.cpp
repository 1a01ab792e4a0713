// Joining a dealer's session from a backend: the whole client API a party needs.
// Usage: join_and_prove ws://HOST:PORT SESSION_ID VALUE
#include <bp/client/party_client.hpp>
#include <bp/random.hpp>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ws://HOST:PORT SESSION_ID VALUE\n", argv[0]);
    return 64;
  }
  const auto dealer = bp::client::parse_endpoint(argv[1]);
  if (!dealer) return 64;
  bp::SystemRandom rng;
  const bp::Scalar blinding = bp::Scalar::random(rng);  // keep it: it opens your commitment
  bp::client::Options options;
  options.timeout = std::chrono::seconds(30);
  const auto outcome = bp::client::join_and_prove(*dealer, argv[2], std::strtoull(argv[3], nullptr, 10), blinding,
                                                  options);
  if (!outcome) {
    std::fprintf(stderr, "%s\n", bp::client::describe(outcome.error()).c_str());
    return 1;
  }
  std::printf("seat %zu: a %zu-byte proof over %zu commitments, label \"%s\"\n", outcome->position,
              outcome->result.proof.to_bytes().size(), outcome->result.commitments.size(),
              outcome->result.label.c_str());
  return 0;
}
