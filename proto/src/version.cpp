#include "bp/wire/version.hpp"

#include "bp/backend.hpp"
#include "bp/json.hpp"
#include "bp/version.hpp"
#include "bp/wire/codec.hpp"

namespace bp::wire {

namespace {
std::string wire_version() { return std::to_string(kWireVersion) + "." + std::to_string(kWireMinorVersion); }
std::string c_abi_version() { return std::to_string(kCAbiMajor) + "." + std::to_string(kCAbiMinor); }
}  // namespace

std::string version_line(std::string_view program) {
  return std::string(program) + " " + std::string(release_version()) + " (commit " + std::string(build_commit()) +
         "), wire " + wire_version() + ", C ABI " + c_abi_version() + ", backend " + backend_name(active_backend());
}

std::string version_json() {
  return JsonObject()
      .text("version", release_version())
      .text("commit", build_commit())
      .text("wire", wire_version())
      .text("c_abi", c_abi_version())
      .text("backend", backend_name(active_backend()))
      .str();
}

}  // namespace bp::wire
