#include "machine.hpp"

#include <cstdio>
#include <cstring>
#include <thread>

#include "bp/backend.hpp"

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

std::string machine_lines() {
  return "CPU: " + cpu_model_name() + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " cores\nbackend: " + backend_choice() + "\n";
}

}  // namespace bp::tools
