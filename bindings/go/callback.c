// The C side of the join callback: libbp calls this on its thread; it hands over to Go.
#include "_cgo_export.h"

void bp_go_join_done(void* user, int status, bp_join_result* result, const bp_error* err) {
  bpGoJoinDone(user, status, result, (bp_error*)err);
}
