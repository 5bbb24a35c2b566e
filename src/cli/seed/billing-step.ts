import type { LocalPaymentProvider } from '../../adapters/payments/local.js';
import { publicBaseUrlOf } from '../../config.js';
import { createPriceBody, createProductBody } from '../../modules/billing/catalog/schemas.js';
import { BillingCatalogService } from '../../modules/billing/catalog/service.js';
import { CheckoutService } from '../../modules/billing/checkout/service.js';
import { Fulfilment } from '../../modules/billing/checkout/index.js';
import { CreditsService } from '../../modules/billing/credits/service.js';
import { upsertRulesetBody, upsertTierBody } from '../../modules/plans/schemas.js';
import { PlansService } from '../../modules/plans/service.js';
import { staffActor, type SeedContext } from './context.js';
import type { DemoPlayer } from './people.js';
import { checkoutByRequestKey, demoProductId, hasKey } from './queries.js';

const BILLING = 'hannah.billing.demo@example.com';

const RULESETS = [
  { key: 'standard', name: 'Standard', description: '1080p at 60 fps.', limits: { max_fps: 60, max_height: 1080 } },
  {
    key: 'priority',
    name: 'Priority',
    description: '1440p at 120 fps, priority queue.',
    limits: { max_fps: 120, max_height: 1440 },
  },
];
const TIERS = [
  { key: 'free', name: 'Free', rank: 0, rulesetKey: 'standard', description: 'One hour a day.' },
  { key: 'plus', name: 'Plus', rank: 1, rulesetKey: 'standard', description: 'Unlimited play.' },
  { key: 'pro', name: 'Pro', rank: 2, rulesetKey: 'priority', description: 'Unlimited play, priority pool.' },
];

interface DemoProduct {
  demoKey: string;
  product: Record<string, unknown>;
  price: { currency: string; unitAmount: number; interval?: 'month' | 'year' };
}
const PRODUCTS: DemoProduct[] = [
  {
    demoKey: 'plus-monthly',
    product: { kind: 'plan', tierKey: 'plus', name: 'Plus', description: 'Unlimited play.', sortOrder: 1 },
    price: { currency: 'usd', unitAmount: 499, interval: 'month' },
  },
  {
    demoKey: 'pro-monthly',
    product: { kind: 'plan', tierKey: 'pro', name: 'Pro', description: 'Priority pool, 1440p.', sortOrder: 2 },
    price: { currency: 'usd', unitAmount: 999, interval: 'month' },
  },
  {
    demoKey: 'pro-yearly',
    product: { kind: 'plan', tierKey: 'pro', name: 'Pro (yearly)', description: 'Two months free.', sortOrder: 3 },
    price: { currency: 'usd', unitAmount: 9_990, interval: 'year' },
  },
  {
    demoKey: 'credits-500',
    product: { kind: 'credit_pack', credits: 500, name: '500 credits', sortOrder: 10 },
    price: { currency: 'usd', unitAmount: 499 },
  },
  {
    demoKey: 'credits-1500',
    product: { kind: 'credit_pack', credits: 1_500, name: '1500 credits', sortOrder: 11 },
    price: { currency: 'usd', unitAmount: 1_299 },
  },
];

const WELCOME_CREDITS = 250;

/** Rulesets and tiers. */
async function seedPlans(context: SeedContext): Promise<void> {
  const { platform, tally } = context;
  const admin = staffActor(context, 'marcus.admin.demo@example.com');
  const plans = new PlansService(platform.db, platform.write);
  for (const ruleset of RULESETS) {
    const exists = await hasKey(platform.db, 'plan_rulesets', ruleset.key);
    tally.count('plan rulesets', !exists);
    if (!exists) await plans.upsertRuleset(admin, upsertRulesetBody.parse(ruleset));
  }
  for (const tier of TIERS) {
    const exists = await hasKey(platform.db, 'plan_tiers', tier.key);
    tally.count('plan tiers', !exists);
    if (!exists) await plans.upsertTier(admin, upsertTierBody.parse(tier));
  }
}

/**
 * The products with their prices, on the local provider (which makes its own price ids). Answers
 * product ids by demo key.
 */
async function seedProducts(context: SeedContext): Promise<Map<string, string>> {
  const { platform, tally } = context;
  const actor = staffActor(context, BILLING);
  const catalog = new BillingCatalogService(platform.db, platform.write, platform.payments.kind);
  const ids = new Map<string, string>();
  for (const item of PRODUCTS) {
    let id = await demoProductId(platform.db, item.demoKey);
    tally.count('billing products', id === undefined);
    if (id === undefined) {
      id = (
        await catalog.createProduct(
          actor,
          createProductBody.parse({ ...item.product, metadata: { demo_key: item.demoKey } }),
        )
      ).id;
      await catalog.createPrice(actor, id, createPriceBody.parse(item.price));
    }
    ids.set(item.demoKey, id);
  }
  return ids;
}

/** Where the local checkout sends the player back to: an allowed origin when the deployment lists them. */
function returnUrl(context: SeedContext, path: string): string {
  const config = context.platform.config;
  return new URL(path, config.checkoutAllowedOrigins[0] ?? publicBaseUrlOf(config)).toString();
}

/**
 * A player buys a product the way they would: a checkout (keyed, so a second run finds it),
 * paid on the local provider's page, and the provider's events through fulfilment (the
 * subscription, the invoice and payment, the tier, the credits of a pack).
 */
async function buy(context: SeedContext, player: DemoPlayer, productId: string, demoKey: string): Promise<boolean> {
  const { platform } = context;
  const requestKey = `demo-seed-${demoKey}`;
  const provider = platform.payments as unknown as LocalPaymentProvider;
  const earlier = await checkoutByRequestKey(platform.db, player.id, requestKey);
  // Made by an earlier run: paid then, unless that run stopped between the two.
  if (earlier !== undefined && provider.checkout(earlier.provider_checkout_id)?.status !== 'open') return false;
  const checkouts = new CheckoutService(platform.db, platform.payments, platform.config);
  const { id } = await checkouts.createCheckoutSession(
    player.id,
    { productId, successUrl: returnUrl(context, '/billing/done'), cancelUrl: returnUrl(context, '/billing') },
    requestKey,
  );
  const fulfilment = new Fulfilment(platform.write, platform.payments.kind, platform.log);
  for (const event of provider.payCheckout(id)) await fulfilment.process(event);
  return true;
}

/**
 * The plan tiers; with the local payment provider, the plans and packs on sale, and
 * subscriptions and pack purchases by a share of the players; every player's welcome credits, and a few goodwill grants.
 */
export async function seedBilling(context: SeedContext): Promise<void> {
  const { platform, tally, players, random } = context;
  await seedPlans(context);

  // Drawn whatever the provider, so the draws after these are the same on every configuration.
  const purchases = players.flatMap((player) => {
    const draw = random.next();
    const plan = draw < 0.16 ? 'plus-monthly' : draw < 0.26 ? 'pro-monthly' : draw < 0.3 ? 'pro-yearly' : undefined;
    const pack = random.chance(0.15) ? random.pick(['credits-500', 'credits-1500']) : undefined;
    return [
      ...(plan === undefined ? [] : [{ player, demoKey: plan, kind: 'subscriptions' }]),
      ...(pack === undefined ? [] : [{ player, demoKey: pack, kind: 'credit pack purchases' }]),
    ];
  });
  if (platform.payments.kind === 'local') {
    const products = await seedProducts(context);
    for (const { player, demoKey, kind } of purchases)
      tally.count(kind, await buy(context, player, products.get(demoKey)!, demoKey));
  } else {
    // A Stripe price is made in Stripe's dashboard first: the demo has none to name, so nothing to sell.
    tally.skipped('billing products', 'the payment provider is Stripe: products need its price ids');
    tally.skipped('subscriptions', 'the payment provider is Stripe: the demo buys only on the local provider');
  }

  const credits = new CreditsService(platform.db, platform.write);
  const billing = staffActor(context, BILLING);
  for (const player of players) {
    const { replayed } = await credits.grant(
      billing,
      { user_id: player.id, amount: WELCOME_CREDITS, reason: 'Welcome credits' },
      `demo-seed-welcome-${player.id}`,
    );
    tally.count('credit grants', !replayed);
  }
  for (const player of random.sample(players, 6)) {
    const amount = random.pick([50, 100, 150]);
    const { replayed } = await credits.grant(
      billing,
      { user_id: player.id, amount, reason: 'Goodwill: a session dropped mid-game' },
      `demo-seed-goodwill-${player.id}`,
    );
    tally.count('credit grants', !replayed);
  }
}
