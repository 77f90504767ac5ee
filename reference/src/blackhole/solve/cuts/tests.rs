use super::*;

/// Calls `found` with the edge counts of every order of play that takes each pile
/// top-down, each card adjacent in rank to the one before (brute force).
fn every_walk(ranks: usize, at: u32, piles: &mut [Vec<u32>], edges: &mut Vec<i64>, found: &mut dyn FnMut(&[i64])) {
    if piles.iter().all(Vec::is_empty) {
        found(edges);
        return;
    }
    for p in 0..piles.len() {
        let Some(&rank) = piles[p].last() else { continue };
        let edge = if (at as usize + 1) % ranks == rank as usize {
            at as usize
        } else if (rank as usize + 1) % ranks == at as usize {
            rank as usize
        } else {
            continue;
        };
        edges[edge] += 1;
        piles[p].pop();
        every_walk(ranks, rank, piles, edges, found);
        piles[p].push(rank);
        edges[edge] -= 1;
    }
}

#[test]
fn never_rejects_the_edge_counts_of_a_real_order_of_play() {
    let mut rng = 99u64;
    let mut next = |n: u64| {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (rng >> 33) % n
    };
    let (mut walks, mut rejected) = (0, 0);
    for _ in 0..3000 {
        let ranks = [3usize, 5, 7][next(3) as usize];
        let mut piles: Vec<Vec<u32>> =
            (0..1 + next(4)).map(|_| (0..next(6)).map(|_| next(ranks as u64) as u32).collect()).collect();
        let hole = next(ranks as u64) as u32;
        let mut order = PileOrder::new(ranks as u32, &piles);
        let heights: Vec<u32> = piles.iter().map(|p| p.len() as u32).collect();
        order.load(hole, &heights);
        every_walk(ranks, hole, &mut piles, &mut vec![0; ranks], &mut |edges| {
            walks += 1;
            assert!(order.allow(&Crossings::from_counts(edges)), "hole {hole}, edges {edges:?}");
        });
        // And some made-up counts, which it may well reject.
        let made_up: Vec<i64> = (0..ranks).map(|_| next(3) as i64).collect();
        rejected += usize::from(!order.allow(&Crossings::from_counts(&made_up)));
    }
    assert!(walks > 1000 && rejected > 50, "{walks} walks, {rejected} rejected");
}

#[test]
fn a_far_card_above_a_near_one_needs_two_crossings() {
    // Five ranks, the hole at rank 0, one pile holding rank 3 on top of rank 1.
    let mut order = PileOrder::new(5, &[vec![1, 3]]);
    order.load(0, &[2]);
    // Edges 0-1, 1-2, 2-3 once each: the cut at edges 2 and 4 (far arc {3, 4}) is crossed
    // once, so rank 1 (near) must come before rank 3 (far), but 3 is on top.
    assert!(!order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
    // Edges 4-0, 3-4, 2-3, 1-2 once each: 0, 4, 3, 2, 1 plays the 3 first, which fits.
    assert!(order.allow(&Crossings::from_counts(&[0, 1, 1, 1, 1])));
    // With the worm hole, the 3 may wait there while the 1 is played.
    order.load_worm(0, None, &[2]);
    assert!(order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
    // Not if the worm hole already holds a far card.
    order.load_worm(0, Some(4), &[2]);
    assert!(!order.allow(&Crossings::from_counts(&[1, 1, 1, 0, 0])));
}
