# Shared by the benchmark scripts (source it; needs DIR and BYTES set).
#
# measure NAME CMD...: runs CMD once (stdout to $DIR/out-NAME, stderr dropped) and keeps NAME's
# fastest wall time in BEST[NAME], every wall time in TIMES[NAME] (for `median NAME`) and largest max
# RSS (KB) in RSS[NAME]. Callers run rounds that
# call measure once per command, in turn: on a shared machine the load drifts over minutes (by up
# to 2x here), and interleaving makes the drift hit every command alike.
declare -A BEST RSS TIMES
measure() {
  local name=$1 s m
  shift
  /usr/bin/time -f "%e %M" -o "$DIR/time.out" "$@" > "$DIR/out-$name" 2>/dev/null || true
  read -r s m < <(tail -1 "$DIR/time.out")
  if [ -z "${BEST[$name]:-}" ] || awk -v a="$s" -v b="${BEST[$name]}" 'BEGIN { exit !(a < b) }'; then
    BEST[$name]=$s
  fi
  TIMES[$name]="${TIMES[$name]:-} $s"
  [ "$m" -gt "${RSS[$name]:-0}" ] && RSS[$name]=$m
  return 0
}
# median NAME: the median of NAME's wall times (the lower middle one of an even count).
median() { tr ' ' '\n' <<< "${TIMES[$1]}" | grep . | sort -g | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
# rate SECONDS: MB/s for BYTES.
rate() { awk -v b="$BYTES" -v s="$1" 'BEGIN { if (s <= 0) s = 0.01; printf "%.0f", b / 1e6 / s }'; }
