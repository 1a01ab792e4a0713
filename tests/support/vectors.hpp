// Loading the reference vectors of ../shared/vectors (see VECTORS.md there).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bp/generators.hpp"
#include "bp/ristretto.hpp"
#include "bp/scalar.hpp"

namespace bp::test {

// Parses <vectors dir>/<name>; the directory is BP_VECTORS_DIR from the environment or the build.
nlohmann::json load_vectors(const std::string& name);

std::vector<uint8_t> hex_bytes(const std::string& hex);
Scalar hex_scalar(const std::string& hex);
CompressedRistretto hex_point(const std::string& hex);
std::string hex(std::span<const uint8_t> bytes);

// Generators shared by the tests, built once: BulletproofGens(64, 64) and the Pedersen pair.
const BulletproofGens& gens();
const PedersenGens& pc();

}  // namespace bp::test
