import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { TestApp } from './app.js';

/** An event as Stripe sends it to a webhook endpoint: its id and the body, byte for byte. */
export interface StripeTestEvent {
  id: string;
  payload: string;
}

/** A Stripe event of `type` about `object`, created now unless `created` (Unix seconds) says otherwise. */
export function stripeEvent(
  type: string,
  object: unknown,
  { id = `evt_${randomUUID().replaceAll('-', '')}`, created = Math.floor(Date.now() / 1000) } = {},
): StripeTestEvent {
  const payload = JSON.stringify({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
  });
  return { id, payload };
}

/** One delivery to `/v1/webhooks/stripe`, signed with `secret` by the official SDK's test helper at the moment it is sent. */
export function deliverStripeEvent(t: Pick<TestApp, 'request'>, event: StripeTestEvent, secret: string) {
  const header = Stripe.webhooks.generateTestHeaderString({ payload: event.payload, secret });
  return t.request({
    method: 'POST',
    url: '/v1/webhooks/stripe',
    payload: event.payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
  });
}
