// What a benchmark prints about the machine it ran on, so that its rows are read as ratios
// within one run and never as absolute times across CPUs.
#pragma once

#include <string>

namespace bp::tools {

// The CPU as /proc/cpuinfo names it ("unknown" elsewhere).
std::string cpu_model_name();

// The lines a benchmark's tables start with: "CPU: <model>, <cores> cores" and
// "backend: <bp::backend_choice()>", newline-terminated.
std::string machine_lines();

}  // namespace bp::tools
