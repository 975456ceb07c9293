// Served = the account's subscription is active and unexpired (the API answers any other account 402, so
// nothing is watched for it either). Tracks of other accounts do not count for packing or cadence.
export const SERVED_USER = `u.subscription_status = 'active' AND u.current_period_end > now()`;
