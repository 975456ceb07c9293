export { createAccount, findAccountByEmail, deleteAccount } from './accounts';
export type { CreatedAccount } from './accounts';
export { issueApiKey, authenticateApiKey } from './api-keys';
export type { AuthenticatedKey } from './api-keys';
export { setSubscription, subscriptionProblem, subscriptionStatusSchema } from './subscriptions';
export type { SubscriptionState } from './subscriptions';
