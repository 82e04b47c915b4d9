# Shared by rule_sweep_counts.sh and rule_sweep_cpu.sh (source it; needs ROOT, DIR, SIZE, SWEEP and
# KINDS set): writes gen_kinds.py's inputs of SIZE bytes into LOGS=$DIR/logs-$SIZE (once), an empty
# file $DIR/empty.log (the start-up's input) and make_rulesets.py's sets $DIR/rulesets/rN for each N
# of SWEEP.
mkdir -p "$DIR/logs-$SIZE"
LOGS=$DIR/logs-$SIZE
for k in $KINDS; do
  [ -f "$LOGS/$k.log" ] || /usr/bin/python3 "$ROOT/tests/bench/gen_kinds.py" "$LOGS" --size "$SIZE" "$k" > /dev/null
done
: > "$DIR/empty.log"
# shellcheck disable=SC2086  # SWEEP is a list of numbers
/usr/bin/python3 "$ROOT/tests/bench/make_rulesets.py" "$ROOT/rules" "$DIR/rulesets" $SWEEP > /dev/null
