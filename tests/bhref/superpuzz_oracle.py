#!/usr/bin/env python3
"""A held-out oracle for `bhref --game superpuzz SOLVE`, sharing nothing with it but the rules.

Written from seed 003's rules as docs/superpuzz.md states them, in its own terms (a card is a
suit 0-3 and a denomination 0 to W-1; the 0s are taken out, leaving holes), with its own deals
(Python's random, not java.util.Random) and its own breadth-first search. For each deal it
writes the Gaps layout file bhref reads, runs `bhref --game superpuzz SOLVE` on it, replays
bhref's moves by its own rules, and requires bhref's answer to be a win of exactly the length
its search found shortest, or `0` exactly when its search met every reachable position and
found no win.

    superpuzz_oracle.py --bhref PATH [--deals N] [--seed S] [--width W]

Prints one line per deal and a summary; exits 1 at the first disagreement, 0 when all agree.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

HOLE = None


def deal(rng, width):
    """Four rows of `width` cells: a shuffled deck of 4 suits x `width` denominations, dealt
    row by row, each 0 taken out and its cell left a hole."""
    deck = [(suit, denomination) for suit in range(4) for denomination in range(width)]
    rng.shuffle(deck)
    return tuple(HOLE if card[1] == 0 else card for card in deck)


def moves(cells, width):
    """Every legal move as (card, cell): a hole on the left edge takes any 1 (one already on the
    edge included); another hole takes the card of the same suit one higher than its left
    neighbour, unless that neighbour is a hole or its suit's last card."""
    where = {card: cell for cell, card in enumerate(cells) if card is not HOLE}
    for cell, card in enumerate(cells):
        if card is not HOLE:
            continue
        if cell % width == 0:
            for suit in range(4):
                yield (suit, 1), cell
            continue
        left = cells[cell - 1]
        if left is not HOLE and left[1] < width - 1:
            successor = (left[0], left[1] + 1)
            assert successor in where
            yield successor, cell


def play(cells, card, cell, width):
    """`cells` after `card` moves into the hole `cell`, or None when that is not a legal move."""
    if (card, cell) not in set(moves(cells, width)):
        return None
    grid = list(cells)
    grid[grid.index(card)] = HOLE
    grid[cell] = card
    return tuple(grid)


def won(cells, width):
    """Every row holds one suit's 1 to W-1 from the left edge, then its hole."""
    for row in range(4):
        line = cells[row * width:(row + 1) * width]
        if line[-1] is not HOLE or any(card is HOLE for card in line[:-1]):
            return False
        if any(card != (line[0][0], place + 1) for place, card in enumerate(line[:-1])):
            return False
    return True


def shortest(cells, width, cap):
    """The fewest moves that win `cells` (None when no win is reachable), by breadth-first
    search; raises when more than `cap` positions would be met."""
    seen = {cells}
    level, depth = [cells], 0
    while level:
        if any(won(position, width) for position in level):
            return depth
        following = []
        for position in level:
            for card, cell in moves(position, width):
                grid = list(position)
                grid[grid.index(card)] = HOLE
                grid[cell] = card
                grid = tuple(grid)
                if grid not in seen:
                    seen.add(grid)
                    following.append(grid)
        if len(seen) > cap:
            raise RuntimeError(f"more than {cap} positions")
        level, depth = following, depth + 1
    return None


def number(card, width):
    """bhref's number for a card: suit * W + denomination + 1 (a 0 is its row's first column)."""
    return card[0] * width + card[1] + 1


def layout_text(cells, width):
    """The Gaps layout file: `W 4`, then each row's 0 (never played) and its W cells."""
    rows = [f"{width} 4"]
    for row in range(4):
        line = [row * width + 1] + [0 if card is HOLE else number(card, width)
                                     for card in cells[row * width:(row + 1) * width]]
        rows.append(" ".join(map(str, line)))
    return "\n".join(rows) + "\n"


def replay(cells, integers, width):
    """The number of moves of bhref's line when it wins `cells` by these rules, else None."""
    by_number = {number((suit, denomination), width): (suit, denomination)
                 for suit in range(4) for denomination in range(1, width)}
    if len(integers) % 2:
        return None
    for at in range(0, len(integers), 2):
        card, position = by_number.get(integers[at]), integers[at + 1]
        row, column = divmod(position, width + 1)
        if card is None or column == 0 or row >= 4:
            return None
        cells = play(cells, card, row * width + column - 1, width)
        if cells is None:
            return None
    return len(integers) // 2 if won(cells, width) else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bhref", required=True)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--width", type=int, default=6)
    parser.add_argument("--cap", type=int, default=3_000_000)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    won_count = lost_count = 0
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "deal.txt")
        for index in range(args.deals):
            cells = deal(rng, args.width)
            with open(path, "w") as file:
                file.write(layout_text(cells, args.width))
            answer = subprocess.run([args.bhref, "--game", "superpuzz", "SOLVE", path],
                                    capture_output=True, text=True, check=False)
            integers = [int(word) for word in answer.stdout.split()]
            best = shortest(cells, args.width, args.cap)
            if best is None:
                agree, said = integers == [0], "no win"
                lost_count += agree
            else:
                agree = integers[:1] == [1] and replay(cells, integers[1:], args.width) == best
                said = f"shortest {best}"
                won_count += agree
            print(f"deal {index}: {said}; bhref: {answer.stdout.strip()[:60]}"
                  f"{'' if agree else '  DISAGREES'}")
            if not agree:
                print(layout_text(cells, args.width), end="")
                return 1
    print(f"agreed on {args.deals} of {args.deals} deals: {won_count} won, {lost_count} with no win")
    return 0


if __name__ == "__main__":
    sys.exit(main())
