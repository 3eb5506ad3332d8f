#!/bin/sh
# The sidecar of the infiniband component (docs/deploy.md, "InfiniBand hosts"):
# runs ibnetdiscover with the container's arguments every INTERVAL seconds and
# saves what it prints to OUTPUT, which the controller's ibnetdiscover source
# reads (config.file, with config.maxAge). The file is replaced whole (written
# beside it, then renamed), so the controller never reads half an output; a run
# that fails or times out leaves the last good output in place, and maxAge
# then tells the controller when it has grown too old.
#
#   OUTPUT         where the output goes (default /var/run/ibnetdiscover/fabric.txt)
#   INTERVAL       seconds between runs (default 300)
#   TIMEOUT        seconds one run may take before it is killed (default 300)
#   IBNETDISCOVER  the program to run (default ibnetdiscover)
set -u

OUTPUT=${OUTPUT:-/var/run/ibnetdiscover/fabric.txt}
INTERVAL=${INTERVAL:-300}
TIMEOUT=${TIMEOUT:-300}
IBNETDISCOVER=${IBNETDISCOVER:-ibnetdiscover}

# A sleep in the background and a wait, so SIGTERM ends the pod at once.
trap 'exit 0' TERM INT

while :; do
    if timeout "$TIMEOUT" "$IBNETDISCOVER" "$@" >"$OUTPUT.tmp" 2>"$OUTPUT.err" && [ -s "$OUTPUT.tmp" ]; then
        mv -f "$OUTPUT.tmp" "$OUTPUT"
        echo "$(date -u +%FT%TZ) wrote $OUTPUT ($(wc -c <"$OUTPUT") bytes)"
    else
        echo "$(date -u +%FT%TZ) $IBNETDISCOVER $* failed; keeping the last output: $(tail -n 5 "$OUTPUT.err")" >&2
        rm -f "$OUTPUT.tmp"
    fi
    sleep "$INTERVAL" &
    wait $!
done
