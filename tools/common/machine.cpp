#include "machine.hpp"

#include <cstdio>
#include <cstring>

namespace bp::tools {

std::string cpu_model_name() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return "unknown";
  char line[512];
  std::string name = "unknown";
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "model name", 10) != 0) continue;
    const char* colon = std::strchr(line, ':');
    if (colon) name = std::string(colon + 2, std::strcspn(colon + 2, "\n"));
    break;
  }
  std::fclose(f);
  return name;
}

}  // namespace bp::tools
