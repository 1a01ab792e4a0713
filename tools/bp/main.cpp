// bp: prove, verify and benchmark Bulletproofs range proofs and constraint-system proofs from the command line.
#include <sodium.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "args.hpp"
#include "bp/wire/version.hpp"
#include "commands.hpp"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  bp --version   the release, its commit, the wire and C ABI versions, the backend\n"
    "  bp prove  --bits N --values v1,v2,... [--blindings h1,h2,...] [--label L]\n"
    "  bp prove  [--bits N] --values v1,... --min a1,... [--max b1,...] [--blindings ...] [--label L]\n"
    "            each value within public bounds (one entry per value or one for all; an empty --max\n"
    "            entry: a minimum only); n defaults to the least of 8..64 covering max - min\n"
    "  bp verify --bits N --commitments h1,h2,... --proof HEX [--label L] [--min a1,... --max b1,...]\n"
    "            [--session ID --dealer-key HEX|FILE --signature HEX]   also check the dealer's signature\n"
    "  bp verify --batch FILE|- [--threads T]   every proof of a JSON-lines file ({\"bits\",\"label\",\n"
    "            \"commitments\",\"proof\"} per line, or {\"gadgets\",...} as bp r1cs prove prints) in one\n"
    "            batch verification; names the failing ones\n"
    "  bp aggregate --bits N --values v1,...,vm [--label L]   (m from 1 to 256, parties and dealer in process)\n"
    "  bp r1cs prove  --gadgets LIST --values v1,... [--blindings h1,...] [--label L]\n"
    "  bp r1cs verify --gadgets LIST --commitments h1,... --proof HEX [--label L]\n"
    "            a constraint-system proof of a gadget list, e.g. \"shuffle:3;range:32\": shuffle:K (2K\n"
    "            values, inputs then outputs), range:N (1, below 2^N), example[:C2] (5), member:s0|s1|...\n"
    "            (1, one of them), sum:K (K parts then their total), geq:N (a >= b, both below 2^N);\n"
    "            prints {\"gadgets\",\"label\",\"commitments\",\"proof\"} / ok or fail: reason (docs/r1cs.md);\n"
    "            verify [--session ID --dealer-key HEX|FILE --signature HEX] also checks a gadget session's\n"
    "            dealer signature (bp-party join --gadget prints all three)\n"
    "  bp bench  [--json] [--quick]\n"
    "  bp bench  --sweep [--json] [--quick]   prove/verify of n = 64 against m on every backend, batch\n"
    "            verification against the batch size (tools/plots' data)\n"
    "  bp bench  --positions [--json] [--quick]   prove, verify and aggregate for m = 64, 128, 256\n"
    "  bp bench  --r1cs [--json] [--quick]   constraint-system proofs: range:64, shuffle:8, shuffle:64, a combined "
    "list\n"
    "  bp bench  --threads [--json] [--quick]   batch verification on 1, 2, 4, 8, 16 threads: 1024 proofs of\n"
    "            m = 1, 128 of m = 16\n"
    "  bp bench  --limit [--quick]   per backend: the cost of a field multiplication, point addition, doubling,\n"
    "            decompression; per proof operation their counts, the ideal time they make, and measured/ideal\n"
    "  bp bench  --party [--json]   what the largest sessions the limits admit cost one party: each step cold,\n"
    "            its time and its process's peak memory\n"
    "  bp bench  --repeat prove|verify|aggregate|batch [--m M] [--seconds S]   one operation (n = 64, m <= 256;\n"
    "            batch: 64 proofs) in a loop, for a profiler\n";

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) {
    std::fprintf(stderr, "error: libsodium failed to initialise\n");
    return 2;
  }
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "--version") {
    std::printf("%s\n", bp::wire::version_line("bp").c_str());
    return 0;
  }
  try {
    if (command == "prove") return bp::cli::run_prove(argc, argv);
    if (command == "verify") return bp::cli::run_verify(argc, argv);
    if (command == "bench") return bp::cli::run_bench(argc, argv);
    if (command == "aggregate") return bp::cli::run_aggregate(argc, argv);
    if (command == "r1cs") return bp::cli::run_r1cs(argc, argv);
    throw bp::cli::UsageError("unknown command '" + command + "' (try bp --help)");
  } catch (const bp::cli::UsageError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
  }
}
