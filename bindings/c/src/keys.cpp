// Identity keys through the C ABI: the same files and rules as `bp-party keygen`.
#include <cstring>
#include <memory>

#include "edge.hpp"
#include "key.hpp"

using bp::c_abi::fail;
using bp::c_abi::guarded;
using bp::c_abi::succeed;

extern "C" {

int bp_key_generate(bp_key** out, bp_error* err) {
  return guarded(err, [&] {
    if (out == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = new bp_key{std::make_shared<const bp::wire::Identity>(bp::wire::Identity::generate())};
    return succeed(err);
  });
}

int bp_key_load(const char* path, bp_key** out, bp_error* err) {
  return guarded(err, [&] {
    if (path == nullptr || out == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "path or out is NULL");
    *out = nullptr;
    auto loaded = bp::wire::Identity::load(path);
    if (!loaded) return fail(err, BP_ERR_INVALID_ARGUMENT, loaded.error());
    *out = new bp_key{std::make_shared<const bp::wire::Identity>(std::move(*loaded))};
    return succeed(err);
  });
}

int bp_key_save(const bp_key* key, const char* path, bp_error* err) {
  return guarded(err, [&] {
    if (key == nullptr || path == nullptr) return fail(err, BP_ERR_INVALID_ARGUMENT, "key or path is NULL");
    if (auto why = key->identity->save(path)) return fail(err, BP_ERR_INVALID_ARGUMENT, *why);
    return succeed(err);
  });
}

void bp_key_public(const bp_key* key, uint8_t public_key[32]) {
  if (key == nullptr || public_key == nullptr) return;
  std::memcpy(public_key, key->identity->public_key().data(), 32);
}

void bp_key_public_hex(const bp_key* key, char hex[65]) {
  if (key == nullptr || hex == nullptr) return;
  try {
    const std::string text = bp::wire::public_key_hex(key->identity->public_key());
    std::memcpy(hex, text.c_str(), 65);
  } catch (...) {
    hex[0] = '\0';
  }
}

// The Identity wipes its secret when the last holder (this key, or a session still
// running with it) lets go.
void bp_key_free(bp_key* key) { delete key; }

}  // extern "C"
