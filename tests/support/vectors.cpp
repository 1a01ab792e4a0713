#include "vectors.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "bp/hex.hpp"

namespace bp::test {

nlohmann::json load_vectors(const std::string& name) {
  const char* env = std::getenv("BP_VECTORS_DIR");
  const std::string dir = env != nullptr ? env : BP_VECTORS_DIR;
  std::ifstream in(dir + "/" + name);
  if (!in) throw std::runtime_error("cannot open vector file " + dir + "/" + name);
  return nlohmann::json::parse(in);
}

std::vector<uint8_t> hex_bytes(const std::string& h) {
  auto bytes = from_hex(h);
  if (!bytes) throw std::runtime_error("bad hex in vectors: " + h);
  return *bytes;
}

Scalar hex_scalar(const std::string& h) {
  const auto bytes = hex_bytes(h);
  if (bytes.size() != 32) throw std::runtime_error("scalar is not 32 bytes");
  auto s = Scalar::from_canonical_bytes(std::span<const uint8_t, 32>(bytes.data(), 32));
  if (!s) throw std::runtime_error("non-canonical scalar in vectors");
  return *s;
}

CompressedRistretto hex_point(const std::string& h) {
  const auto bytes = hex_bytes(h);
  if (bytes.size() != 32) throw std::runtime_error("point is not 32 bytes");
  CompressedRistretto c;
  std::copy(bytes.begin(), bytes.end(), c.bytes.begin());
  return c;
}

std::string hex(std::span<const uint8_t> bytes) { return to_hex(bytes); }

const BulletproofGens& gens() {
  static const BulletproofGens g(64, 64);
  return g;
}

const PedersenGens& pc() {
  static const PedersenGens p;
  return p;
}

}  // namespace bp::test
