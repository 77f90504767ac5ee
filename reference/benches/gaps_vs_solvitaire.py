#!/usr/bin/env python3
"""Gaps, basic variant: bhref against Solvitaire (Blake & Gent's solver, the public anchor of
issue 34) on the same deals, one process at a time, in the same run.

    python3 reference/benches/gaps_vs_solvitaire.py SOLVITAIRE BHREF [DEALS=200]

SOLVITAIRE is a built `solvitaire` binary (github.com/thecharlesblake/Solvitaire; it builds with
g++ -std=c++14 -O3 -DNDEBUG -Ilib -Ilib/rapidjson src/main/**/*.cpp -lboost_program_options),
BHREF a release `bhref`. For seeds 1..DEALS the deal is Solvitaire's own (`--type
gaps-basic-variant --random SEED --deal-only`), converted to a bhref layout (its rows read left
to right, its gap placeholder `AS` a gap, its suit numbers C H S D as rows 0 to 3, whose Two each
first column takes); each deal is decided by `solvitaire --classify` and by `bhref --game gaps
SOLVE`, each timed as a whole process (user + system CPU, and peak resident memory, from
wait4: a floor of about 14 MiB is the
forked Python before exec). Prints every deal's row, then both answers' agreement and the CPU per deal (median, p99,
max, mean) with the ratios. A disagreement is an error (exit 1).
"""

import json
import math
import os
import subprocess
import sys
import tempfile

SUIT = {"C": 0, "H": 1, "S": 2, "D": 3}  # Solvitaire's suit numbers (src/main/game/card.cpp)
RANK = {"A": 1, "J": 11, "Q": 12, "K": 13}


def timed(argv):
    """Runs argv; returns (stdout, CPU seconds, peak RSS in KiB)."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            sys.exit(f"{argv}: exit status {status}")
        out.seek(0)
        return out.read().decode(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def layout(solvitaire, seed):
    deal = subprocess.run(
        [solvitaire, "--type", "gaps-basic-variant", "--random", str(seed), "--deal-only"],
        capture_output=True, text=True, check=True,
    ).stdout
    lines = ["13 4"]
    for row, cards in enumerate(json.loads(deal)["sequences"]):
        cells = [0 if c == "AS" else SUIT[c[-1]] * 13 + (RANK.get(c[:-1]) or int(c[:-1])) for c in cards]
        lines.append(" ".join(map(str, [row * 13 + 1] + cells)))
    return "\n".join(lines) + "\n"


def spread(values):
    """Nearest-rank median, p99, max and the mean of values."""
    values = sorted(values)
    at = lambda q: values[max(1, math.ceil(q * len(values))) - 1]
    return at(0.5), at(0.99), values[-1], sum(values) / len(values)


def main():
    solvitaire, bhref = sys.argv[1], sys.argv[2]
    deals = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, deals + 1):
            path = os.path.join(tmp, f"deal-{seed}.txt")
            with open(path, "w") as f:
                f.write(layout(solvitaire, seed))
            out, s_cpu, s_rss = timed([solvitaire, "--type", "gaps-basic-variant", "--random", str(seed), "--classify"])
            s_won = out.strip().splitlines()[-1].split(", ")[-1] == "solved"
            out, b_cpu, b_rss = timed([bhref, "--game", "gaps", "SOLVE", path])
            b_won = out.split()[0] == "1"
            rows.append((seed, s_won, s_cpu, s_rss, b_won, b_cpu, b_rss))
            print(f"{seed} solvitaire {'won' if s_won else 'lost'} {s_cpu:.3f} s {s_rss} KiB; "
                  f"bhref {'won' if b_won else 'lost'} {b_cpu:.3f} s {b_rss} KiB", flush=True)
    disagree = [r[0] for r in rows if r[1] != r[4]]
    won = sum(r[4] for r in rows)
    print(f"\n{deals} deals: {won} won ({100 * won / deals:.1f}%); answers disagree on {len(disagree)} {disagree}")
    s, b = spread([r[2] for r in rows]), spread([r[5] for r in rows])
    for name, (ss, bb) in zip(["median", "p99", "max", "mean"], zip(s, b)):
        print(f"CPU per deal, {name}: solvitaire {ss:.3f} s, bhref {bb:.3f} s, ratio {ss / max(bb, 1e-3):.1f}")
    print(f"total CPU: solvitaire {sum(r[2] for r in rows):.1f} s, bhref {sum(r[5] for r in rows):.1f} s, "
          f"ratio {sum(r[2] for r in rows) / sum(r[5] for r in rows):.1f}")
    print(f"peak memory per deal, max: solvitaire {max(r[3] for r in rows) / 1024:.0f} MiB, "
          f"bhref {max(r[6] for r in rows) / 1024:.0f} MiB")
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
