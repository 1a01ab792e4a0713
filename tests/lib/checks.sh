# shellcheck shell=bash
# What the shell test stages share: counting checks and a free loopback port. Sourced; the
# sourcing script prints "NAME: $passed passed, $failed failed" at its end.
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "   ok: $*"; }
fail() { failed=$((failed + 1)); echo "   FAIL: $*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
