/**
 * The cost meter of one agent tree node. Every loop of the node (the parent's phases) and the
 * meters of its children charge it; it forwards each charge to the budget above, so the one
 * `maxBudgetUsd` budget at the root bounds the whole tree, and `subtreeUsd()` is the node's total
 * (its own calls plus all its descendants') for the result line.
 */
import type { CostBudget } from '../loop/pricing.js';

/** A cost budget of one node of the agent tree, charged through to the budget above it. */
export interface TreeBudget extends CostBudget {
  /** Cost charged through this node (itself and its descendants). */
  subtreeUsd(): number;
}

/** Creates the budget of one tree node, charging every cost to `above` too. */
export function createTreeBudget(above: CostBudget | undefined): TreeBudget {
  let spent = 0;
  return {
    // Without a cap above, nothing is ever exhausted.
    maxUsd: above?.maxUsd ?? Number.POSITIVE_INFINITY,
    // What the loop reports when the budget runs out: the spend of the whole budget, not the node's.
    spentUsd: () => above?.spentUsd() ?? spent,
    charge: (usd) => {
      spent += usd;
      above?.charge(usd);
    },
    exhausted: () => above?.exhausted() ?? false,
    subtreeUsd: () => spent,
  };
}
