// The C side of libbp's callbacks (a join's end, its events): libbp calls these on its
// thread; they hand over to Go.
#include "_cgo_export.h"

void bp_go_join_done(void* user, int status, bp_join_result* result, const bp_error* err) {
  bpGoJoinDone(user, status, result, (bp_error*)err);
}

void bp_go_event(void* user, const bp_event* event) { bpGoEvent(user, (bp_event*)event); }
