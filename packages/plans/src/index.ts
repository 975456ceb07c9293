export { PLAN_IDS, planIdSchema, planConfigPatchSchema, snapshotOf, listPlans, updatePlan, switchPlan, switchPlanInTransaction, resyncLimits } from './plans';
export type { PlanId, PlanConfigPatch, LimitSnapshot } from './plans';
