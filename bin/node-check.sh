# Sourced by bin/select-node and bin/board-admin: the oldest Node the board runs on, read from
# package.json's "engines" (the one place that says it), and a comparison of two versions.

# node_minimum PACKAGE_JSON: prints X.Y of "engines": {"node": ">=X.Y"}.
node_minimum() { sed -n 's/^ *"node": *">=\([0-9.]*\)".*/\1/p' "$1"; }

# at_least A B: true when version A is at least version B (dotted numbers).
at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }
