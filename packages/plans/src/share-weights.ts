/**
 * Plan weights of what all accounts share upstream (X's search budget, engagement sample calls): an account's part
 * when every account asks for more than there is. A plan without an entry (a private deployment's own) weighs 1.
 */
export const PLAN_SHARE_WEIGHTS: Readonly<Record<string, number>> = { starter: 1, pro: 2, business: 4 };

export function planShareWeight(planId: string): number {
  return PLAN_SHARE_WEIGHTS[planId] ?? 1;
}

/** SQL: the share weight of the plan id in `column` (a CASE over PLAN_SHARE_WEIGHTS; plan ids are `[a-z]+`). */
export function planShareWeightSql(column: string): string {
  const cases = Object.entries(PLAN_SHARE_WEIGHTS).map(([plan, weight]) => `WHEN '${plan.replace(/'/g, "''")}' THEN ${weight}`);
  return `(CASE ${column} ${cases.join(' ')} ELSE 1 END)`;
}
