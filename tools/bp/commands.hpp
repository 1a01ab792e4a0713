#pragma once

namespace bp::cli {

// Each returns the process exit code; bad arguments throw UsageError.
int run_prove(int argc, char** argv);
int run_verify(int argc, char** argv);
int run_bench(int argc, char** argv);
int run_aggregate(int argc, char** argv);
int run_r1cs(int argc, char** argv);

}  // namespace bp::cli
