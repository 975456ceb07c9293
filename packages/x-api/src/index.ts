export { createXClient } from './x-client';
export type { XClient, XClientOptions } from './x-client';
export type { XRequestObserver } from './x-transport';
export type { SearchRecentParams, UserPostsParams, EngagementParams } from './x-request.schema';
export {
  XApiError,
  XRateLimitedError,
  XUsageCappedError,
  XAuthError,
  XInvalidRequestError,
  XUnavailableError,
  XUserTokenRequiredError,
  XInvalidResponseError,
  XStreamNoRulesError,
} from './x-errors';
export type { XErrorCode, XRateLimitKind } from './x-errors';
export { streamReconnectDelayMs, STREAM_KEEPALIVE_MS, STREAM_READ_TIMEOUT_MS } from './x-stream';
export type {
  OpenStreamOptions,
  XStreamEnd,
  XStreamEndReason,
  XStreamPost,
  XStreamRule,
  XStreamRuleChange,
  XStreamRuleError,
  XStreamRuleInput,
} from './x-stream';
export { COMPLIANCE_MAX_IDS } from './compliance';
export { parsePostPage } from './normalize-response';
export type { XComplianceEvent, XComplianceJob, XComplianceResults } from './compliance';
export { X_ENDPOINT_NAMES, POST_FIELDS, POST_EXPANSIONS, USER_FIELDS, MEDIA_FIELDS } from './x-endpoints';
export type { XEndpointName } from './x-endpoints';
export type { BudgetState } from './rate-budget';
export type {
  XPost,
  XUser,
  XPostMetrics,
  XTagEntity,
  XMentionEntity,
  XReferenceType,
  XProblem,
  XPageMeta,
  XPostLookup,
  XPostPage,
  XUserLookup,
  XSingleUser,
  XUserPage,
} from './x-types';
