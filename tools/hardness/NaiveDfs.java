import java.nio.file.Files;
import java.util.HashSet;
import java.nio.file.Path;

/**
 * A plain depth-first search for Black Hole / Worm Hole: the solver a student writes first.
 * Used to confirm that a suite's hard group is out of reach of a search without a visited set,
 * and (with `memo`) within reach of the same search with one.
 *
 *   java NaiveDfs.java PUZZLE bh|worm [seconds] [memo]
 *
 * Prints `1 nodes ms`, `0 nodes ms`, or `-1 nodes ms` when the time runs out.
 */
public class NaiveDfs {
    static int ranks;
    static int deck;
    static int[][] piles;
    static int[] heights;
    static int hole;
    static int worm = 0;
    static boolean wormAllowed;
    static int left;
    static long nodes = 0;
    static long deadline;
    /** Dead states (pile heights, hole rank, worm card) when `memo` is given, else null. */
    static HashSet<Long> dead;
    /** The place value of each pile's height in a packed state key. */
    static long[] weight;

    static class Timeout extends RuntimeException {}

    static boolean adjacent(int a, int b) {
        int d = Math.floorMod((a - 1) % ranks - (b - 1) % ranks, ranks);
        return d == 1 || d == ranks - 1;
    }

    static boolean dfs() {
        if ((++nodes & 0xffff) == 0 && System.currentTimeMillis() > deadline) throw new Timeout();
        if (left == 0 && worm == 0) return true;
        long key = 0;
        if (dead != null) {
            for (int p = 0; p < heights.length; p++) key += heights[p] * weight[p];
            key = (key * ranks + (hole - 1) % ranks) * (deck + 1L) + worm;
            if (dead.contains(key)) return false;
        }
        for (int p = 0; p < piles.length; p++) {
            if (heights[p] == 0) continue;
            int card = piles[p][heights[p] - 1];
            if (adjacent(card, hole)) {
                int old = hole;
                heights[p]--; left--; hole = card;
                if (dfs()) return true;
                heights[p]++; left++; hole = old;
            }
        }
        if (wormAllowed && worm != 0 && adjacent(worm, hole)) {
            int old = hole, w = worm;
            hole = w; worm = 0;
            if (dfs()) return true;
            hole = old; worm = w;
        }
        if (wormAllowed && worm == 0) {
            for (int p = 0; p < piles.length; p++) {
                if (heights[p] == 0) continue;
                worm = piles[p][heights[p] - 1];
                heights[p]--; left--;
                if (dfs()) return true;
                heights[p]++; left++; worm = 0;
            }
        }
        if (dead != null) dead.add(key);
        return false;
    }

    public static void main(String[] args) throws Exception {
        String[] t = new String(Files.readAllBytes(Path.of(args[0]))).trim().split("\\s+");
        int i = 0;
        ranks = Integer.parseInt(t[i++]);
        deck = ranks * Integer.parseInt(t[i++]);
        int n = Integer.parseInt(t[i++]);
        hole = Integer.parseInt(t[i++]);
        piles = new int[n][];
        heights = new int[n];
        for (int p = 0; p < n; p++) {
            int start = i;
            while (!t[i].equals("-1")) i++;
            piles[p] = new int[i - start];
            for (int k = start; k < i; k++) piles[p][k - start] = Integer.parseInt(t[k]);
            heights[p] = piles[p].length;
            left += heights[p];
            i++;
        }
        wormAllowed = args.length > 1 && args[1].equals("worm");
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        if (args.length > 3 && args[3].equals("memo")) {
            // Keys are exact for the decks a suite uses (they fit in a long); no overflow check.
            dead = new HashSet<>();
            weight = new long[n];
            long w = 1;
            for (int p = 0; p < n; p++) {
                weight[p] = w;
                w *= piles[p].length + 1;
            }
        }
        long start = System.currentTimeMillis();
        deadline = start + (long) (seconds * 1000);
        String answer;
        try {
            answer = dfs() ? "1" : "0";
        } catch (Timeout e) {
            answer = "-1";
        }
        System.out.println(answer + " " + nodes + " " + (System.currentTimeMillis() - start));
    }
}
