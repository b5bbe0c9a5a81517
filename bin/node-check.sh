# Sourced by bin/select-node and bin/board-admin: the oldest Node the board runs on, read from
# package.json's "engines" (the one place that says it), and a comparison of two versions. Shell
# built-ins only: board-admin runs both before every command, where each program started for them
# (sed, sort) would cost about as much CPU as loading the command itself.

# read_node_minimum PACKAGE_JSON: sets `minimum` to X.Y of "engines": {"node": ">=X.Y"}, else to ''.
read_node_minimum() {
  minimum=''
  while IFS= read -r _nc_line || [ -n "$_nc_line" ]; do
    case $_nc_line in
      *'"node":'*'">='*)
        _nc_line=${_nc_line#*'">='}
        minimum=${_nc_line%%'"'*}
        case $minimum in '' | *[!0-9.]*) minimum='' ;; *) return 0 ;; esac
        ;;
    esac
  done <"$1"
}

# at_least A B: true when version A is at least version B (dotted numbers; a missing part is 0).
at_least() {
  _nc_a=$1. _nc_b=$2.
  while [ -n "$_nc_a" ] || [ -n "$_nc_b" ]; do
    _nc_x=${_nc_a%%.*} _nc_y=${_nc_b%%.*}
    _nc_a=${_nc_a#*.} _nc_b=${_nc_b#*.}
    [ "${_nc_x:-0}" -gt "${_nc_y:-0}" ] && return 0
    [ "${_nc_x:-0}" -lt "${_nc_y:-0}" ] && return 1
  done
  return 0
}
