export { PLAN_IDS, RETENTION_DAYS_MIN, RETENTION_DAYS_MAX, planIdSchema, planConfigPatchSchema, snapshotOf, listPlans, updatePlan, switchPlan, switchPlanInTransaction, resyncLimits } from './plans';
export type { PlanId, PlanConfigPatch, LimitSnapshot } from './plans';
export { PLAN_SHARE_WEIGHTS, planShareWeight, planShareWeightSql } from './share-weights';
