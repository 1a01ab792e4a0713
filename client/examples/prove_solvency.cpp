// An exchange's seat in a gadget session: it proves that its account balances add up to the
// total it reports, without showing any of them (the gadget sum:K over K balances and their
// total). Other exchanges prove their own statements in the other seats; the session's one
// R1CS proof covers them all, and each exchange's commitments sit in its seat's place.
// Usage: prove_solvency ws[s]://HOST:PORT SESSION_ID KEY_FILE BALANCE...
// The operator opens a session with a sum:K seat for this key (K balances), e.g.
//   bp-party create-session ... --gadgets "sum:3;sum:2" --allow KEY_FILE.pub,OTHER.pub
// Prints the result as `bp-party join --gadget` does: bp r1cs verify checks it.
#include <bp/client/party_client.hpp>
#include <bp/random.hpp>
#include <bp/wire/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s ws[s]://HOST:PORT SESSION_ID KEY_FILE BALANCE...\n", argv[0]);
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

  // The statement: sum:K over the K balances, then their total. The seat must be exactly this
  // gadget; a total that is not the sum is refused before anything is sent.
  bp::client::PartyGadget statement;
  uint64_t total = 0;
  for (int i = 4; i < argc; ++i) {
    statement.values.push_back(std::strtoull(argv[i], nullptr, 10));
    total += statement.values.back();
  }
  statement.gadget = "sum:" + std::to_string(statement.values.size());
  statement.values.push_back(total);
  bp::SystemRandom rng;
  for (size_t k = 0; k < statement.values.size(); ++k)
    statement.blindings.push_back(bp::Scalar::random(rng));  // a real backend stores each: it opens V
  const auto outcome = bp::client::join_gadget_session(*dealer, argv[2], std::move(statement), options);
  if (!outcome) {
    std::fprintf(stderr, "%s\n", bp::client::describe(outcome.error()).c_str());
    return 1;
  }
  std::fprintf(stderr, "seat %zu of \"%s\": %zu commitments in a %zu-byte proof, signed by the dealer\n", outcome->seat,
               outcome->result.gadgets.c_str(), outcome->result.commitments.size(),
               outcome->result.proof.serialized_size());
  std::printf("%s\n", bp::wire::r1cs_result_json(outcome->result, outcome->seat).c_str());
  return 0;
}
