#!/usr/bin/env bash
# Ranks GEN seeds by the reference's search nodes, to choose a suite's hard group by the
# reference's own counts; then confirms the top ones with a plain DFS (NaiveDfs.java) that has no
# visited set, and with the same DFS plus a visited set. See README.md.
#
#   tools/hardness/scan.sh GAME FIRST LAST CARDS RANKS SUITS PILES [TOP] [SECONDS]
#
# GAME is SOLVE or SOLVEWORM. Prints, for the TOP (default 10) seeds with the most nodes:
#   seed answer nodes | naive: answer nodes ms | memo: answer nodes ms
# where an answer of -1 means the DFS ran out of its SECONDS (default 10).
set -euo pipefail
game=$1 first=$2 last=$3 cards=$4 ranks=$5 suits=$6 piles=$7 top=${8:-10} seconds=${9:-10}
here=$(cd "$(dirname "$0")" && pwd)
bhref=${BHREF:-$here/../../target/release/bhref}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/NaiveDfs.java"
mode=bh
[ "$game" = SOLVEWORM ] && mode=worm
for seed in $(seq "$first" "$last"); do
    "$bhref" GEN "$seed" "$cards" "$ranks" "$suits" "$piles" > "$work/p.txt"
    "$bhref" "$game" "$work/p.txt" --stats 2>/dev/null \
        | awk -v s="$seed" 'NR==1 {a=$1} /^nodes:/ {print s, a, $2}'
done | sort -k3 -n -r | head -n "$top" | while read -r seed answer nodes; do
    "$bhref" GEN "$seed" "$cards" "$ranks" "$suits" "$piles" > "$work/p.txt"
    naive=$(java -Xss256m -cp "$work" NaiveDfs "$work/p.txt" "$mode" "$seconds")
    memo=$(java -Xss256m -cp "$work" NaiveDfs "$work/p.txt" "$mode" "$seconds" memo)
    echo "$seed $answer $nodes | naive: $naive | memo: $memo"
done
