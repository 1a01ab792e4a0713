// The control for ctime_prove: branching on a byte marked secret must be reported, or the
// check above proves nothing. Registered as a test that is expected to fail under valgrind.
#include <valgrind/memcheck.h>

#include <cstdio>

int main() {
  volatile unsigned char secret = 1;
  VALGRIND_MAKE_MEM_UNDEFINED((void*)&secret, 1);
  if (secret == 1) std::puts("branched on a secret");
  return 0;
}
