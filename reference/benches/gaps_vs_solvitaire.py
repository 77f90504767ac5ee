#!/usr/bin/env python3
"""Gaps: bhref against Solvitaire (Blake & Gent's solver, the public anchor of issues 34 and 48)
on the same deals, one process at a time, in the same run.

    python3 reference/benches/gaps_vs_solvitaire.py SOLVITAIRE BHREF [DEALS=200]
        [--variant basic|common] [--time-limit SECS] [--seeds S,S,...]

SOLVITAIRE is a built `solvitaire` binary (github.com/thecharlesblake/Solvitaire; it builds with
g++ -std=c++14 -O3 -DNDEBUG -Ilib -Ilib/rapidjson src/main/**/*.cpp -lboost_program_options),
BHREF a release `bhref`. The basic variant is Solvitaire's preset `gaps-basic-variant` against
`bhref --game gaps SOLVE`; the common variant (any Two into a gap of the first column) its
`gaps-one-deal` against `SOLVECOMMON`. For seeds 1..DEALS the deal is Solvitaire's own (`--type
PRESET --random SEED --deal-only`), converted to a bhref layout (its rows read left to right,
its gap placeholder `AS` a gap, its suit numbers C H S D as rows 0 to 3, whose Two each first
column takes in the basic variant); each deal is decided by `solvitaire --classify` and by
bhref, each timed as a whole process (user + system CPU, and peak resident memory, from wait4:
a floor of about 14 MiB is the forked Python before exec). With --time-limit both get the same
wall-clock limit (Solvitaire's --timeout, bhref's --time-limit) and a deal either leaves
undecided counts as such. --seeds plays only those of seeds 1..DEALS (e.g. the deals both
decided in an earlier run, again without a time limit). Prints every deal's row, then how many
each decided, their agreement on the deals both decided, and the CPU per deal on those deals
(median, p99, max, mean) with the ratios. A disagreement is an error (exit 1).
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


PRESET = {"basic": "gaps-basic-variant", "common": "gaps-one-deal"}
COMMAND = {"basic": "SOLVE", "common": "SOLVECOMMON"}
SOLVITAIRE_ANSWER = {"solved": "won", "unsolvable": "lost", "timed-out": "undecided",
                     "memory-limit-reached": "undecided"}
BHREF_ANSWER = {"1": "won", "0": "lost", "-1": "undecided"}


def layout(solvitaire, preset, seed):
    deal = subprocess.run(
        [solvitaire, "--type", preset, "--random", str(seed), "--deal-only"],
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


def arguments():
    """(solvitaire, bhref, seeds, variant, time limit in seconds or None) from the command line."""
    words, options = [], {"--variant": "basic", "--time-limit": None, "--seeds": None}
    argv = iter(sys.argv[1:])
    for word in argv:
        if word in options:
            options[word] = next(argv, None)
        else:
            words.append(word)
    if len(words) not in (2, 3) or options["--variant"] not in PRESET:
        sys.exit(__doc__)
    limit, deals = options["--time-limit"], int(words[2]) if len(words) > 2 else 200
    seeds = range(1, deals + 1)
    if options["--seeds"]:
        chosen = {int(seed) for seed in options["--seeds"].split(",")}
        seeds = [seed for seed in seeds if seed in chosen]
    return words[0], words[1], seeds, options["--variant"], float(limit) if limit else None


def decide(solvitaire, bhref, variant, limit, seed, path):
    """Both answers ('won', 'lost' or 'undecided') with their CPU seconds and peak KiB."""
    s_argv = [solvitaire, "--type", PRESET[variant], "--random", str(seed), "--classify"]
    b_argv = [bhref, "--game", "gaps", COMMAND[variant], path]
    if limit:
        s_argv += ["--timeout", str(int(limit * 1000))]
        b_argv += ["--time-limit", str(limit)]
    out, s_cpu, s_rss = timed(s_argv)
    s_answer = SOLVITAIRE_ANSWER[out.strip().splitlines()[-1].split(", ")[-1]]
    out, b_cpu, b_rss = timed(b_argv)
    return s_answer, s_cpu, s_rss, BHREF_ANSWER[out.split()[0]], b_cpu, b_rss


def main():
    solvitaire, bhref, seeds, variant, limit = arguments()
    rows, deals = [], len(seeds)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            path = os.path.join(tmp, f"deal-{seed}.txt")
            with open(path, "w") as f:
                f.write(layout(solvitaire, PRESET[variant], seed))
            s_answer, s_cpu, s_rss, b_answer, b_cpu, b_rss = decide(solvitaire, bhref, variant, limit, seed, path)
            rows.append((seed, s_answer, s_cpu, s_rss, b_answer, b_cpu, b_rss))
            print(f"{seed} solvitaire {s_answer} {s_cpu:.3f} s {s_rss} KiB; "
                  f"bhref {b_answer} {b_cpu:.3f} s {b_rss} KiB", flush=True)
    both = [r for r in rows if "undecided" not in (r[1], r[4])]
    disagree = [r[0] for r in both if r[1] != r[4]]
    print(f"\n{variant} variant, {deals} deals" + (f", {limit:g} s each" if limit else ""))
    for name, at in [("solvitaire", 1), ("bhref", 4)]:
        count = {answer: sum(r[at] == answer for r in rows) for answer in ("won", "lost", "undecided")}
        print(f"{name}: decided {deals - count['undecided']} ({count['won']} won, {count['lost']} lost), "
              f"undecided {count['undecided']}")
    print(f"both decided {len(both)}; answers disagree on {len(disagree)} {disagree}")
    if not both:
        sys.exit(1 if disagree else 0)
    s, b = spread([r[2] for r in both]), spread([r[5] for r in both])
    for name, (ss, bb) in zip(["median", "p99", "max", "mean"], zip(s, b)):
        print(f"CPU per deal both decided, {name}: solvitaire {ss:.3f} s, bhref {bb:.3f} s, "
              f"ratio {ss / max(bb, 1e-3):.1f}")
    print(f"total CPU on those: solvitaire {sum(r[2] for r in both):.1f} s, bhref {sum(r[5] for r in both):.1f} s, "
          f"ratio {sum(r[2] for r in both) / max(sum(r[5] for r in both), 1e-3):.1f}")
    print(f"peak memory per deal, max: solvitaire {max(r[3] for r in rows) / 1024:.0f} MiB, "
          f"bhref {max(r[6] for r in rows) / 1024:.0f} MiB")
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
