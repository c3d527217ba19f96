#!/usr/bin/env bash
# Usage: make screens   (runs: bash docs/screens.sh)
#
# Regenerates the pictures of the README and docs/ from the real binary on
# the embedded demo: each view is driven in a tmux pane of 100x30, captured with its
# colours (capture-pane -e) and rendered to SVG by charmbracelet/freeze
# (pinned, installed into .tools/bin). The demo's endpoint is a random
# loopback port, so it is replaced in the pictures by a fixed one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
FREEZE_VERSION=${FREEZE_VERSION:-v0.2.2}
bin=$root/.tools/bin
freeze=$bin/freeze-$FREEZE_VERSION
if [ ! -x "$freeze" ]; then
	mkdir -p "$bin/tmp"
	GOBIN=$bin/tmp go install "github.com/charmbracelet/freeze@$FREEZE_VERSION"
	mv "$bin/tmp/freeze" "$freeze"
fi
command -v tmux >/dev/null || { echo "screens: tmux is needed" >&2; exit 1; }
out=$root/docs/screens
mkdir -p "$out"
lt=$(mktemp -d)/locktable
go build -o "$lt" .
state=$(mktemp -d)
session=locktable-screens-$$
tmux new-session -d -s "$session" -x 100 -y 30 "XDG_STATE_HOME=$state $lt --demo; sleep 5"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT

# wait_for TEXT: until the pane shows TEXT (10 s at most).
wait_for() {
	for _ in $(seq 100); do
		tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	echo "screens: the pane never showed: $1" >&2
	tmux capture-pane -p -t "$session" >&2
	exit 1
}
# shot NAME: the pane, with colours, as docs/screens/NAME.svg.
shot() {
	sleep 0.3
	tmux capture-pane -e -p -t "$session" |
		sed -E 's#http://127\.0\.0\.1:[0-9]+#http://127.0.0.1:8000#' >"$out/$1.ansi"
	# A font family, not an embedded font: 10 KB a picture instead of 370.
	"$freeze" --language ansi --window=false --padding 20 --font.family "JetBrains Mono, DejaVu Sans Mono, Menlo, Consolas, monospace" \
		-o "$out/$1.svg" "$out/$1.ansi" >/dev/null
	rm "$out/$1.ansi"
	echo "screens: docs/screens/$1.svg"
}
keys() { tmux send-keys -t "$session" "$@"; }

wait_for "▸ ACCT#"
wait_for "inval 1" # the check is done: the header counts every kind
shot accounts
keys 2; wait_for "Locks"; sleep 0.5; shot locks
keys 3; wait_for "Problems"; sleep 0.5; shot problems
keys 1; sleep 0.3; keys '?'; sleep 0.5; shot help
keys Escape; sleep 0.3
keys e; wait_for "rename"; keys C-u; tmux send-keys -t "$session" -l "ada@lovelace.io"; keys Enter
wait_for "transact-write-items"; shot preview
keys Escape; sleep 0.2; keys Escape; sleep 0.2; keys q

# The ElectroDB demo table (--demo --preset electrodb:agent), at 80x24
# as a user's terminal may be: agents named by their whole key, each
# with its constraints.
sleep 1
tmux kill-session -t "$session" 2>/dev/null || true
tmux new-session -d -s "$session" -x 80 -y 24 "XDG_STATE_HOME=$state $lt --demo --preset electrodb:agent --unique email --unique codename; sleep 5"
wait_for "missing 9"
shot electrodb
keys q
