// The bp command as scripts drive it: the real binary, its JSON, its exit codes.
#include <doctest/doctest.h>

#include <array>
#include <map>
#include <set>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace {

struct Run {
  int exit_code;
  std::string out;  // stdout and stderr together
};

Run run(const std::string& args) {
  const std::string cmd = std::string(BP_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t got;
  while ((got = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), got);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string join(const nlohmann::json& arr) {
  std::string s;
  for (const auto& x : arr) s += (s.empty() ? "" : ",") + x.get<std::string>();
  return s;
}

}  // namespace

TEST_CASE("bp prove prints JSON that bp verify accepts, under the same label only") {
  const Run proved = run("prove --bits 32 --values 7,4000000000 --label demo-label");
  REQUIRE(proved.exit_code == 0);
  const auto doc = nlohmann::json::parse(proved.out);
  CHECK(doc["bits"] == 32);
  CHECK(doc["label"] == "demo-label");
  REQUIRE(doc["commitments"].size() == 2);
  const std::string proof = doc["proof"];
  CHECK(proof.size() == 2 * 672);
  const std::string common = "--bits 32 --commitments " + join(doc["commitments"]) + " --proof " + proof;
  const Run ok = run("verify " + common + " --label demo-label");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "ok\n");
  const Run wrong_label = run("verify " + common);
  CHECK(wrong_label.exit_code == 1);
  CHECK(wrong_label.out.rfind("fail: ", 0) == 0);
  std::string tampered = proof;
  tampered[300] = tampered[300] == '0' ? '1' : '0';
  const Run bad = run("verify --bits 32 --commitments " + join(doc["commitments"]) + " --proof " + tampered +
                      " --label demo-label");
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.rfind("fail: ", 0) == 0);
}

TEST_CASE("bp prove --min/--max proves values within bounds; bp verify derives the positions itself") {
  // Three values: [40, 50], a minimum only, and [0, 10]: five positions, padded to eight.
  const Run proved = run("prove --values 42,1000,7 --min 40,999,0 --max 50,,10 --label bounded");
  REQUIRE(proved.exit_code == 0);
  const auto doc = nlohmann::json::parse(proved.out);
  CHECK(doc["bits"] == 64);  // a minimum alone covers anything below 2^64
  CHECK(doc["label"] == "bounded");
  CHECK(doc["transcript_label"] == "bounded bounds=40..50,999..,0..10");
  CHECK(doc["bounds"][1] == nlohmann::json{{"min", 999}});
  REQUIRE(doc["commitments"].size() == 3);
  REQUIRE(doc["positions"].size() == 8);
  const std::string common = "--bits 64 --commitments " + join(doc["commitments"]) + " --proof " +
                             doc["proof"].get<std::string>() + " --label bounded";
  CHECK(run("verify " + common + " --min 40,999,0 --max 50,,10").out == "ok\n");
  // Against other bounds, or none, it does not verify.
  CHECK(run("verify " + common + " --min 41,999,0 --max 50,,10").exit_code == 1);
  CHECK(run("verify " + common + " --min 40,999,0 --max 50,,9").exit_code == 1);
  CHECK(run("verify " + common).exit_code == 1);
  // A standard range proof over the printed positions, under the transcript label.
  CHECK(run("verify --bits 64 --commitments " + join(doc["positions"]) + " --proof " + doc["proof"].get<std::string>() +
            " --label '" + doc["transcript_label"].get<std::string>() + "'")
            .out == "ok\n");
  // A bounded statement against a proof made without bounds fails, even for bounds it meets.
  const auto plain = nlohmann::json::parse(run("prove --bits 64 --values 42 --label bounded").out);
  const std::string plain_args = "verify --bits 64 --commitments " + join(plain["commitments"]) + " --proof " +
                                 plain["proof"].get<std::string>() + " --label bounded";
  CHECK(run(plain_args).out == "ok\n");
  CHECK(run(plain_args + " --min 0").exit_code == 1);
  CHECK(run(plain_args + " --min 40 --max 50").exit_code == 1);
  // n is the least that covers max - min, unless --bits says more.
  CHECK(nlohmann::json::parse(run("prove --values 300 --min 100 --max 355").out)["bits"] == 8);
  CHECK(nlohmann::json::parse(run("prove --values 300 --min 100 --max 356").out)["bits"] == 16);
  CHECK(nlohmann::json::parse(run("prove --bits 32 --values 300 --min 100 --max 355").out)["bits"] == 32);

  // A value outside its bounds is refused before anything is proved; bad bounds are usage errors.
  const Run outside = run("prove --values 39 --min 40 --max 50");
  CHECK(outside.exit_code == 1);
  CHECK(outside.out.find("out of bounds") != std::string::npos);
  CHECK(run("prove --values 5 --min 6 --max 5").exit_code == 2);
  CHECK(run("prove --bits 8 --values 5 --min 0 --max 256").exit_code == 2);
  CHECK(run("prove --values 5,6 --min 0,1,2").exit_code == 2);
  CHECK(run("verify " + common + " --min 40,999,0 --max 50,,10 --session x --dealer-key 00 --signature 00").exit_code ==
        2);  // a dealer key of one byte
  // A real key and a signature that does not sign this proof: refused.
  CHECK(run("verify " + common + " --min 40,999,0 --max 50,,10 --session x --dealer-key " + std::string(64, 'a') +
            " --signature " + std::string(128, '0'))
            .out == "fail: the dealer signature does not verify\n");
}

TEST_CASE("given blindings make the commitments deterministic") {
  const std::string blinding = "0100000000000000000000000000000000000000000000000000000000000000";
  const Run a = run("prove --bits 8 --values 0 --blindings " + blinding);
  REQUIRE(a.exit_code == 0);
  // value 0, blinding 1: the commitment is B̃ (pedersen_gens.json).
  CHECK(nlohmann::json::parse(a.out)["commitments"][0] ==
        "8c9240b456a9e6dc65c377a1048d745f94a08cdb7f44cbcd7b46f34048871134");
}

TEST_CASE("bp aggregate runs any number of parties and its proof verifies under the printed label") {
  const Run agg = run("aggregate --bits 16 --values 1,65535,300 --label payroll");
  REQUIRE(agg.exit_code == 0);
  const auto doc = nlohmann::json::parse(agg.out);
  const std::string label = doc["label"];
  CHECK(label.rfind("bp-agg/v1 session=", 0) == 0);
  CHECK(label.find(" n=16 m=4 parties=3 label=payroll") != std::string::npos);
  CHECK(doc["padding"] == nlohmann::json::array({3}));
  REQUIRE(doc["commitments"].size() == 4);
  const std::string common =
      "--bits 16 --commitments " + join(doc["commitments"]) + " --proof " + doc["proof"].get<std::string>();
  CHECK(run("verify " + common + " --label '" + label + "'").out == "ok\n");
  CHECK(run("verify " + common + " --label payroll").exit_code == 1);  // the session binding matters
  CHECK(run("aggregate --bits 8 --values 1,256").exit_code != 0);
}

TEST_CASE("bad input gives one line and a non-zero exit") {
  for (const char* args :
       {"prove --bits 8 --values 256", "prove --bits 7 --values 1", "prove --values 1", "prove --bits 8 --values 1,x",
        "prove --bits 8 --values 1 --blindings zz", "verify --bits 8 --commitments 00 --proof 00", "frobnicate",
        "prove --bits 8 --values 1 --oops"}) {
    CAPTURE(args);
    const Run r = run(args);
    CHECK(r.exit_code != 0);
    CHECK(r.out.find('\n') == r.out.size() - 1);  // exactly one line
  }
}

TEST_CASE("bp bench --json prints one parseable row per line, every backend interleaved where they are compared") {
  const Run r = run("bench --json --quick");
  REQUIRE(r.exit_code == 0);
  size_t rows = 0, start = 0;
  bool saw_yardstick = false, saw_prove = false, saw_batch = false, saw_primitive = false;
  std::vector<nlohmann::json> machine;
  std::map<std::pair<std::string, size_t>, std::vector<nlohmann::json>> interleaved;  // by (op, m)
  while (start < r.out.size()) {
    const size_t end = r.out.find('\n', start);
    const auto row = nlohmann::json::parse(r.out.substr(start, end - start));
    start = end + 1;
    if (row["op"] == "machine") {  // the CPU and the backend choice, once, first
      CHECK(rows == 0);
      machine.push_back(row);
      continue;
    }
    CHECK(row["median_us"].get<double>() > 0);
    if (row["op"] != "primitive") CHECK(row.contains("backend"));  // which field arithmetic it ran on
    if (row.value("interleaved", false)) interleaved[{row["op"], row["m"]}].push_back(row);
    saw_yardstick |= row["op"] == "yardstick";
    saw_prove |= row["op"] == "prove" && row["n"] == 64 && row["m"] == 1;
    saw_batch |= row["op"] == "verify_batch" && row["n"] == 64 && row["m"] == 1 && row["batch"] == 64;
    saw_primitive |= row["op"] == "primitive" && row["name"] == "field multiplication";
    ++rows;
  }
  REQUIRE(machine.size() == 1);
  CHECK(!machine[0]["cpu"].get<std::string>().empty());
  CHECK(machine[0]["backend_choice"].get<std::string>().find(machine[0]["preferred"].get<std::string>()) !=
        std::string::npos);
  CHECK(machine[0]["preferred_is_fastest"].is_boolean());  // its value is a measurement, not asserted
  // prove and verify at m = 1 and 16 and the 64-proof batch, each on every supported backend, one fastest.
  const std::set<std::pair<std::string, size_t>> groups = {
      {"prove", 1}, {"verify", 1}, {"prove", 16}, {"verify", 16}, {"verify_batch", 1}};
  CHECK(interleaved.size() == groups.size());
  for (const auto& entry : interleaved) {  // (not a structured binding: clang 14 cannot capture one in CAPTURE)
    const auto& key = entry.first;
    const auto& group = entry.second;
    CAPTURE(key.first);
    CHECK(groups.count(key) == 1);
    std::set<std::string> backends;
    size_t fastest = 0;
    for (const auto& row : group) {
      backends.insert(row["backend"].get<std::string>());
      fastest += row["fastest"].get<bool>();
    }
    CHECK(backends.count("portable") == 1);
    CHECK(backends.size() == group.size());
    CHECK(fastest == 1);
  }
  CHECK(saw_yardstick);
  CHECK(saw_prove);
  CHECK(saw_batch);
  CHECK(saw_primitive);
  CHECK(rows >= 10);
}

TEST_CASE("bp verify --batch checks a JSON-lines file in one batch and names the bad lines") {
  const std::string path = "/tmp/bp-cli-batch-" + std::to_string(::getpid()) + ".jsonl";
  std::string lines;
  std::vector<std::string> proofs;
  for (const char* args : {"prove --bits 64 --values 5", "prove --bits 8 --values 1,2 --label other",
                           "prove --bits 32 --values 3,4,5,6"}) {
    const Run proved = run(args);
    REQUIRE(proved.exit_code == 0);
    proofs.push_back(proved.out.substr(0, proved.out.find('\n')));
  }
  auto write = [&](const std::vector<std::string>& rows) {
    FILE* f = std::fopen(path.c_str(), "w");
    for (const auto& r : rows) std::fprintf(f, "%s\n\n", r.c_str());
    std::fclose(f);
  };
  write(proofs);
  const Run ok = run("verify --batch " + path);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "ok: 3 proofs\n");

  // The second proof under the wrong label (its transcript differs): only it fails.
  auto relabelled = nlohmann::json::parse(proofs[1]);
  relabelled["label"] = "not the label";
  write({proofs[0], relabelled.dump(), proofs[2], proofs[0]});
  const Run bad = run("verify --batch " + path + " --threads 2");
  CHECK(bad.exit_code == 1);
  CHECK(bad.out == "fail: 1 of 4 proofs do not verify: [1] (0-based, in file order)\n");

  write({proofs[0], "{\"bits\":64,\"commitments\":[\"00\"],\"proof\":\"00\"}"});
  const Run malformed = run("verify --batch " + path);
  CHECK(malformed.exit_code != 0);
  CHECK(malformed.out.find("line 3: commitments") != std::string::npos);

  // Bounded statements, as bp prove --min/--max prints them, join the same batch (three
  // values take five positions, padded to eight); shown against other bounds, one fails.
  const Run bounded = run("prove --values 42,1000,7 --min 40,999,0 --max 50,,10");
  REQUIRE(bounded.exit_code == 0);
  const std::string bounded_line = bounded.out.substr(0, bounded.out.find('\n'));
  auto rebounded = nlohmann::json::parse(bounded_line);
  rebounded["bounds"][0]["min"] = 41;
  write({proofs[0], bounded_line, rebounded.dump(), proofs[2]});
  CHECK(run("verify --batch " + path).out == "fail: 1 of 4 proofs do not verify: [2] (0-based, in file order)\n");
  rebounded["bounds"][0]["min"] = 51;  // above its max
  write({bounded_line, rebounded.dump()});
  CHECK(run("verify --batch " + path).out.find("line 3: bounds") != std::string::npos);
  rebounded["bounds"] = nlohmann::json::array({nlohmann::json{{"min", 0}}});  // one for three commitments
  write({rebounded.dump()});
  CHECK(run("verify --batch " + path).out.find("line 1: bounds") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("bp verify --batch takes gadget lists' proofs beside range proofs, and names the bad ones") {
  const std::string path = "/tmp/bp-cli-gadget-batch-" + std::to_string(::getpid()) + ".jsonl";
  std::vector<std::string> lines;
  for (const char* args : {"r1cs prove --gadgets \"shuffle:2;range:16\" --values 7,9,9,7,65535 --label a",
                           "prove --bits 64 --values 5", "r1cs prove --gadgets \"range:64;geq:8\" --values 1,200,100",
                           "r1cs prove --gadgets example --values 1,2,3,4,12"}) {
    const Run proved = run(args);
    REQUIRE(proved.exit_code == 0);
    lines.push_back(proved.out.substr(0, proved.out.find('\n')));
  }
  auto write = [&](const std::vector<std::string>& rows) {
    FILE* f = std::fopen(path.c_str(), "w");
    for (const auto& r : rows) std::fprintf(f, "%s\n", r.c_str());
    std::fclose(f);
  };
  write(lines);
  CHECK(run("verify --batch " + path).out == "ok: 4 proofs\n");
  // Under another label, or stated as another list of the same size, a proof fails alone.
  auto relabelled = nlohmann::json::parse(lines[0]);
  relabelled["label"] = "b";
  auto restated = nlohmann::json::parse(lines[2]);
  restated["gadgets"] = "range:64;geq:9";
  write({lines[0], relabelled.dump(), lines[1], restated.dump(), lines[3]});
  CHECK(run("verify --batch " + path + " --threads 2").out ==
        "fail: 2 of 5 proofs do not verify: [1,3] (0-based, in file order)\n");
  // Lists the parser refuses, and lists past the wire's limits (shuffle:300 has 599 multipliers).
  auto unknown = nlohmann::json::parse(lines[3]);
  unknown["gadgets"] = "square:3";
  write({lines[3], unknown.dump()});
  CHECK(run("verify --batch " + path).out.find("line 2: gadgets") != std::string::npos);
  auto large = nlohmann::json::parse(lines[3]);
  large["gadgets"] = "shuffle:300";
  write({large.dump()});
  CHECK(run("verify --batch " + path).out.find("line 1: gadgets: more than 512 multipliers") != std::string::npos);
  auto short_of = nlohmann::json::parse(lines[0]);
  short_of["commitments"].erase(0);
  write({short_of.dump()});
  CHECK(run("verify --batch " + path).out.find("line 1: commitments: the list shuffle:2;range:16 takes 5") !=
        std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("bp r1cs prove prints a gadget list's proof that bp r1cs verify accepts, for that statement only") {
  const std::string gadgets = "\"shuffle:2;range:16;member:5|10|20;sum:2;geq:8\"";
  const Run proved = run("r1cs prove --gadgets " + gadgets + " --values 7,9,9,7,65535,10,30,12,42,200,100 --label cli");
  REQUIRE_MESSAGE(proved.exit_code == 0, proved.out);
  const auto doc = nlohmann::json::parse(proved.out);
  CHECK(doc["gadgets"] == "shuffle:2;range:16;member:5|10|20;sum:2;geq:8");
  CHECK(doc["label"] == "cli");
  REQUIRE(doc["commitments"].size() == 11);
  const std::string proof = doc["proof"];
  const std::string common = " --commitments " + join(doc["commitments"]) + " --proof " + proof;
  CHECK(run("r1cs verify --gadgets " + gadgets + common + " --label cli").out == "ok\n");
  // Another label, another list over as many commitments, a changed byte: each fails.
  const Run wrong_label = run("r1cs verify --gadgets " + gadgets + common + " --label other");
  CHECK(wrong_label.exit_code == 1);
  CHECK(wrong_label.out.rfind("fail: ", 0) == 0);
  CHECK(run("r1cs verify --gadgets \"shuffle:2;range:8;member:5|10|20;sum:2;geq:8\"" + common + " --label cli")
            .exit_code == 1);
  std::string tampered = proof;
  tampered[100] = tampered[100] == '0' ? '1' : '0';
  CHECK(run("r1cs verify --gadgets " + gadgets + " --commitments " + join(doc["commitments"]) + " --proof " + tampered +
            " --label cli")
            .exit_code == 1);
  // A false statement is refused, never printed as a proof: geq's gadget refuses it, and a
  // range overflow's proof fails its check before it would be printed.
  CHECK(run("r1cs prove --gadgets geq:8 --values 3,7").exit_code == 1);
  const Run over = run("r1cs prove --gadgets range:8 --values 256");
  CHECK(over.exit_code == 1);
  CHECK(over.out.find("the values do not satisfy range:8") != std::string::npos);
  CHECK(over.out.find("\"proof\"") == std::string::npos);
  // Bad lists and counts are usage errors.
  CHECK(run("r1cs prove --gadgets range:65 --values 1").exit_code == 2);
  CHECK(run("r1cs prove --gadgets range:8 --values 1,2").exit_code == 2);
  CHECK(run("r1cs frobnicate").exit_code == 2);
}

TEST_CASE("bp bench --limit prints each backend's costs and every operation's counts, ideal and ratio") {
  const Run r = run("bench --limit --quick");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("| backend | field multiplication ns | point addition ns | (four chains) ns |") !=
        std::string::npos);
  // The counts are the algorithms': a verification of m = 1 decodes its 17 points and
  // compresses none, on every backend that ran.
  size_t verify_rows = 0, dealer_rows = 0;
  size_t start = 0;
  while (start < r.out.size()) {
    const size_t end = r.out.find('\n', start);
    const std::string line = r.out.substr(start, end - start);
    start = end == std::string::npos ? r.out.size() : end + 1;
    if (line.rfind("| verify m = 1 |", 0) == 0) {
      ++verify_rows;
      CHECK(line.find("| 17 | 0 |") != std::string::npos);
    }
    if (line.rfind("| dealer of an m = 4 session |", 0) == 0) {
      ++dealer_rows;
      CHECK(line.find("x |") != std::string::npos);  // a ratio
    }
  }
  CHECK(verify_rows >= 1);  // portable at least, whatever the CPU
  CHECK(dealer_rows == verify_rows);
}
