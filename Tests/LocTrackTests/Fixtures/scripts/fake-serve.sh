#!/bin/sh
# A stand-in for loctrack-serve in ServeLaunchEndToEndTests: prints its arguments, then
# becomes grep, which prints its own signal mask and ignored signals (inherited from the
# process loctrack became). Committed, not written by the test: a file a test writes can
# still be open for writing in a child another test is forking, and exec then fails
# with ETXTBSY ("Text file busy").
printf 'arg:%s\n' "$@"
exec grep -E '^Sig(Blk|Ign):' /proc/self/status
