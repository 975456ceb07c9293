export { createAccount, findAccountByEmail } from './accounts';
export type { CreatedAccount } from './accounts';
export { eraseAccount, eraseSource, LOCK_SOURCES_SQL, SOURCE_LOCK_CLASS, UNPAID_SINCE } from './erasure';
export type { ErasedAccount, SourceTableName } from './erasure';
export { issueApiKey, authenticateApiKey } from './api-keys';
export type { AuthenticatedKey } from './api-keys';
export { setSubscription, subscriptionProblem, subscriptionStatusSchema } from './subscriptions';
export type { SubscriptionState } from './subscriptions';
