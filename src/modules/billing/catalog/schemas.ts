import { z } from 'zod';

// Staff routes live in the plans group and write camelCase like it (`isActive`, `tierKey`);
// the public list uses operation 6's names (`priceId`) so a storefront passes them straight on.

export const PRODUCT_KINDS = ['credit_pack', 'plan'] as const;
export const PRICE_INTERVALS = ['month', 'year'] as const;
export const PROVIDER_PRICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;
/** Credits × the largest quantity (99) stays inside a PostgreSQL integer. */
export const MAX_PACK_CREDITS = 10_000_000;
/** Minor units; far above any real price, far below 2^53 so it stays exact in JSON. */
export const MAX_UNIT_AMOUNT = 999_999_999_999;
const MAX_METADATA_CHARS = 16_000;

const name = z.string().trim().min(1).max(100);
const description = z.string().max(500).nullable();
const credits = z
  .number()
  .int()
  .min(1)
  .max(MAX_PACK_CREDITS)
  .describe('Credits one pack adds (times the quantity bought).');
const tierKey = z
  .string()
  .min(1)
  .max(32)
  .describe('Key of an existing plan tier (422 `invalid_request` otherwise): what subscribers get.');
const sortOrder = z.number().int().min(-10_000).max(10_000);
const metadata = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= MAX_METADATA_CHARS, {
    error: `metadata must be at most ${MAX_METADATA_CHARS} characters as JSON`,
  })
  .describe('Free-form, for staff tools; never shown publicly.');
/** Named so the refusal says why instead of pointing at an anonymous unknown field. */
const immutable = (message: string) => z.never({ error: message }).optional();

export const productIdParams = z.object({ id: z.guid() });
export const priceIdParams = z.object({ id: z.guid() });

const productCommonFields = {
  name,
  description: description.optional().describe('Omitted: no description.'),
  isActive: z.boolean().default(true),
  sortOrder: sortOrder.default(0).describe('Lists show products by sortOrder, then name.'),
  metadata: metadata.default({}),
};

export const createProductBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('credit_pack'), credits, ...productCommonFields }).strict(),
  z.object({ kind: z.literal('plan'), tierKey, ...productCommonFields }).strict(),
]);
export type CreateProductInput = z.infer<typeof createProductBody>;

export const PRODUCT_FIELDS = [
  'name',
  'description',
  'credits',
  'tierKey',
  'isActive',
  'sortOrder',
  'metadata',
] as const;

export const updateProductBody = z
  .object({
    kind: immutable('kind is immutable after creation'),
    name: name.optional(),
    description: description.optional().describe('`null` clears it.'),
    credits: credits.optional().describe('Credit packs only (422 `invalid_request` for a plan). Later purchases only.'),
    tierKey: tierKey.optional().describe('Plans only (422 `invalid_request` for a credit pack).'),
    isActive: z.boolean().optional().describe('false takes the product off sale; nothing is deleted.'),
    sortOrder: sortOrder.optional(),
    metadata: metadata.optional().describe('Replaces the whole object.'),
  })
  .strict()
  .refine((body) => PRODUCT_FIELDS.some((field) => body[field] !== undefined), {
    error: `provide at least one of ${PRODUCT_FIELDS.join(', ')}`,
  });
export type UpdateProductInput = Omit<z.infer<typeof updateProductBody>, 'kind'>;

export const listProductsQuery = z.object({
  kind: z.enum(PRODUCT_KINDS).optional(),
  isActive: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('Only active (`true`) or inactive (`false`) products.'),
});
export type ListProductsQuery = z.infer<typeof listProductsQuery>;

export const createPriceBody = z
  .object({
    providerPriceId: z
      .string()
      .regex(PROVIDER_PRICE_ID_PATTERN, `providerPriceId must match ${PROVIDER_PRICE_ID_PATTERN.source}`)
      .optional()
      .describe(
        "The payment provider's price id (Stripe: `price_…`, created in its dashboard). Required with Stripe; " +
          'with the local provider it may be omitted and one is made (`local_price_…`).',
      ),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'currency must be a three-letter ISO 4217 code')
      .transform((code) => code.toLowerCase())
      .describe('ISO 4217, stored lowercase.'),
    unitAmount: z
      .number()
      .int()
      .min(0)
      .max(MAX_UNIT_AMOUNT)
      .describe('Minor units of the currency (cents); 0 is free.'),
    interval: z
      .enum(PRICE_INTERVALS)
      .nullable()
      .optional()
      .describe('Billing period: required for a plan, absent for a credit pack (422 `invalid_request` otherwise).'),
    isActive: z.boolean().default(true),
  })
  .strict();
export type CreatePriceInput = z.infer<typeof createPriceBody>;

const fixedTerm = "a price's terms are immutable; create a new price and deactivate this one";
export const updatePriceBody = z
  .object({
    isActive: z.boolean(),
    providerPriceId: immutable(fixedTerm),
    currency: immutable(fixedTerm),
    unitAmount: immutable(fixedTerm),
    interval: immutable(fixedTerm),
  })
  .strict();
export type UpdatePriceInput = Pick<z.infer<typeof updatePriceBody>, 'isActive'>;

export const priceBody = z
  .object({
    id: z.guid(),
    productId: z.guid(),
    providerPriceId: z.string(),
    currency: z.string(),
    unitAmount: z.number().int(),
    interval: z.enum(PRICE_INTERVALS).nullable(),
    isActive: z.boolean(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .meta({ id: 'Price', description: 'A price of a billing product.' });
export type PriceView = z.infer<typeof priceBody>;

export const productBody = z
  .object({
    id: z.guid(),
    kind: z.enum(PRODUCT_KINDS),
    name: z.string(),
    description: z.string().nullable(),
    credits: z.number().int().nullable().describe('Credit packs; null for plans.'),
    tierKey: z.string().nullable().describe('Plans; null for credit packs.'),
    isActive: z.boolean(),
    sortOrder: z.number().int(),
    metadata: z.record(z.string(), z.unknown()),
    prices: z.array(priceBody).describe('Every price, active first, then by currency, newest first.'),
    updatedBy: z.guid().nullable(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .meta({ id: 'Product', description: 'A billing product (a plan or a credit pack) with its prices.' });
export type ProductView = z.infer<typeof productBody>;
export const productsBody = z
  .object({ data: z.array(productBody) })
  .describe('Every billing product, with its prices.');

export const createdPriceResult = z
  .object({ id: z.guid(), providerPriceId: z.string() })
  .describe("The new price's id, here and at the payment provider.");

export const publicPrice = z.object({
  priceId: z.string().describe("Pass as operation 6's `priceId`."),
  currency: z.string(),
  unitAmount: z.number().int().describe('Minor units.'),
  interval: z.enum(PRICE_INTERVALS).nullable(),
});

export const publicProduct = z.object({
  id: z.guid().describe("Pass as operation 6's `productId`."),
  kind: z.enum(PRODUCT_KINDS),
  name: z.string(),
  description: z.string().nullable(),
  credits: z.number().int().nullable(),
  tier: z.object({ key: z.string(), name: z.string(), rank: z.number().int() }).nullable(),
  prices: z.array(publicPrice).describe('Active prices, by currency.'),
});
export type PublicProduct = z.infer<typeof publicProduct>;
export const publicProductsBody = z.array(publicProduct).describe('Every product on sale, with its active prices.');
