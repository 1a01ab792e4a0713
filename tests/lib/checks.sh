# shellcheck shell=bash
# What the shell test stages share: counting checks and a free loopback port. Sourced; the
# sourcing script prints "NAME: $passed passed, $failed failed" at its end.
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { failed=$((failed + 1)); echo "   FAIL: $*"; }
# A stage under set -e that stops on a failing command says where and why, instead of
# ending with no message (CI shows only the stage's output).
set -E
# shellcheck disable=SC2154  # stopped_rc is set inside the trap itself
trap 'stopped_rc=$?; echo "   FAIL: ${BASH_SOURCE[0]##*/} stopped at line $LINENO: $BASH_COMMAND (exit $stopped_rc)" >&2' ERR
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
