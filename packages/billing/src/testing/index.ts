// Test fixtures for workspaces whose tests play Stripe: `@hashwatch/billing/testing`, a local server that speaks
// Stripe's API (the `stripe` SDK is pointed at it with `createStripeBilling`'s `apiBaseUrl`) and signs and
// delivers the events Stripe would send. It plays the outside world: it never reads Hashwatch's database.
export { startStripeFixture, TEST_PRICES } from './stripe-fixture';
export type { CompletedCheckout, ProducedEvents, StripeFixture, StripeFixtureOptions } from './stripe-fixture';
export type { Delivery, SignedEvent } from './stripe-events';
export type { FaultRule, ReceivedStripeRequest } from './stripe-http';
export type { CheckoutSessionObject, CustomerObject, InvoiceObject, PortalSessionObject, SubscriptionObject } from './stripe-objects';
