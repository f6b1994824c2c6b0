# Sourced by scripts/test.sh and rust_kernels/build_ports.sh: `phase NAME COMMAND...` runs COMMAND,
# prints `phase NAME: N s (cpu M s)` and, when $TILEIR_PHASE_LOG names a file, appends
# `NAME<TAB>seconds<TAB>cpu seconds<TAB>status` to it (scripts/ci_budget.py prints the table and
# checks it against .ci/budget.tsv). The CPU seconds are those of the command and its children
# (user + system): on a shared machine they say more than the wall time.
# The command's status is returned, so `set -e` still stops the script at a failed phase; COMMAND
# is one program (not a shell function: `set -e` does not apply inside a function called here).
_phase_times_file="${TMPDIR:-/tmp}/phase_times.$$"
_phase_children_cpu() {  # `times` in this shell (a pipe or $(...) would run it in a subshell)
    times > "$_phase_times_file"
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
        "$_phase_times_file"
}

phase() {
    local name=$1 start=$EPOCHREALTIME cpu_start status=0 seconds cpu
    shift
    _phase_children_cpu > "$_phase_times_file.start"
    "$@" || status=$?
    seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    _phase_children_cpu > "$_phase_times_file.end"
    cpu=$(awk '{ v[NR] = $1 } END { printf "%.1f", v[2] - v[1] }' "$_phase_times_file.start" "$_phase_times_file.end")
    rm -f "$_phase_times_file" "$_phase_times_file.start" "$_phase_times_file.end"
    echo "phase $name: $seconds s (cpu $cpu s)$([ "$status" = 0 ] || echo ", failed: status $status")"
    if [ -n "${TILEIR_PHASE_LOG:-}" ]; then
        printf '%s\t%s\t%s\t%s\n' "$name" "$seconds" "$cpu" "$status" >> "$TILEIR_PHASE_LOG"
    fi
    return "$status"
}
