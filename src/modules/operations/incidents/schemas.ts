import { z } from 'zod';
import { noTextFilter, pagedResponse, pageQuery } from '../../../kernel/pagination.js';
import { PANIC_LEVELS } from '../../../kernel/maintenance.js';
import { SIGNALS } from '../../../kernel/areas/signals.js';
import { INCIDENT_LEVELS, LATENCY_SIGNALS } from './tables.js';

export const MAX_RULES = 50;
const MAX_LATENCY_MS = 600_000;
const DAY_SECONDS = 86_400;

const ruleInput = z
  .object({
    key: z.string().regex(/^[a-z][a-z0-9_-]{0,47}$/, 'a lower-case letter, then up to 47 of a-z, 0-9, `_`, `-`'),
    signal: z
      .enum(SIGNALS)
      .describe(
        "`http_5xx` (this service's 5xx other than 502/503), `database_errors`, `database_latency` (mean probe " +
          'milliseconds), `runtime` (session creations and health probes), `payments`, `mail`.',
      ),
    threshold: z
      .number()
      .min(0)
      .max(MAX_LATENCY_MS)
      .describe(
        'A failure ratio above 0 up to 1; for `database_latency`, milliseconds (at least 1). The rule trips at or ' +
          'above it.',
      ),
    window_seconds: z
      .number()
      .int()
      .min(5)
      .max(3_600)
      .describe('The sliding window the signal is summed over, across every instance.'),
    min_requests: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .describe('Fewer observations in the window never trip the rule.'),
    level: z.enum(INCIDENT_LEVELS),
    auto_clear: z
      .boolean()
      .describe('Whether the monitor clears the level itself once the signal has been healthy for `hold_seconds`.'),
    hold_seconds: z.number().int().min(0).max(DAY_SECONDS),
    cooldown_seconds: z
      .number()
      .int()
      .min(0)
      .max(DAY_SECONDS)
      .describe("At most one automatic change by this rule per cool-down; a person's `off` silences it for as long."),
    enabled: z.boolean().default(true),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const latency = LATENCY_SIGNALS.has(rule.signal);
    if (latency ? rule.threshold < 1 : rule.threshold <= 0 || rule.threshold > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['threshold'],
        message: latency ? 'a latency threshold is at least 1 ms' : 'a ratio threshold is above 0 and at most 1',
      });
    }
  });
export type RuleInput = z.infer<typeof ruleInput>;

export const replaceRulesBody = z
  .object({
    rules: z.array(ruleInput).max(MAX_RULES).describe('The whole list: rules left out are removed.'),
  })
  .strict()
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.rules.forEach((rule, index) => {
      if (seen.has(rule.key))
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'key'],
          message: `key "${rule.key}" appears twice`,
        });
      seen.add(rule.key);
    });
  });
export type ReplaceRulesInput = z.infer<typeof replaceRulesBody>;

export const ruleBody = z.object({
  key: z.string(),
  signal: z.enum(SIGNALS),
  threshold: z.number(),
  window_seconds: z.number().int(),
  min_requests: z.number().int(),
  level: z.enum(INCIDENT_LEVELS),
  auto_clear: z.boolean(),
  hold_seconds: z.number().int(),
  cooldown_seconds: z.number().int(),
  enabled: z.boolean(),
  updated_at: z.date(),
  updated_by: z.string().nullable(),
  state: z.object({
    holding: z.boolean().describe('This rule set the current automatic level.'),
    breached_since: z.date().nullable(),
    healthy_since: z.date().nullable(),
    last_change_at: z.date().nullable().describe('Its last automatic change (trip or clear).'),
    silenced_until: z.date().nullable().describe("Set by a person's `off` during an incident."),
    last_evaluated_at: z.date().nullable(),
    last_value: z.number().nullable(),
    last_total: z.number().int().nullable(),
  }),
});
export type RuleView = z.infer<typeof ruleBody>;
export const rulesBody = z.object({ rules: z.array(ruleBody) }).describe('The incident rules in force.');

/**
 * Unknown query parameters are dropped like on every list, so `limit` and `offset`, which this
 * list took before it paged like the others, are refused by name: ignored, they would answer the
 * first page again and again to a client still sending them.
 */
const pagedByPage = (name: string) =>
  z
    .never({ error: `this list pages with page and per_page: leave ${name} out` })
    .optional()
    .describe('No longer taken (use `page` and `per_page`): any value is refused.');

export const changesQuery = pageQuery(['created_at'], { field: 'created_at', direction: 'desc' }).extend({
  q: noTextFilter,
  limit: pagedByPage('limit'),
  offset: pagedByPage('offset'),
});
export type ChangesQuery = z.infer<typeof changesQuery>;

export const changeBody = z
  .object({
    id: z.guid(),
    created_at: z.date(),
    level: z.enum(PANIC_LEVELS),
    previous_level: z.enum(PANIC_LEVELS),
    auto: z.boolean(),
    reason: z.string().nullable(),
    set_by: z.string().nullable().describe("A staff member's user id, or `incident-monitor`."),
    rule_key: z.string().nullable().describe('The incident rule behind an automatic change.'),
    measurement: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        'What the rule measured: `signal`, `value`, `threshold`, `total`, `failures`, `window_seconds`, `min_requests`.',
      ),
    signals: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("Every signal over the rule's window: `{ value, total, failures }` each."),
  })
  .describe('A change of the maintenance level, automatic or by a person.');
export const changesPage = pagedResponse(changeBody);
