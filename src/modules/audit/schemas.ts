import { z } from 'zod';
import { isoDateTime } from '../../lib/instant.js';
import { pageQuery, pagedResponse } from '../../kernel/pagination.js';

export const auditFilters = z.object({
  actor_id: z.guid().optional(),
  action: z.string().min(1).max(100).optional().describe('Exact action, or a prefix ending in `*` (e.g. `roles.*`).'),
  target_type: z.string().min(1).max(50).optional(),
  target_id: z.string().min(1).max(200).optional(),
  from: isoDateTime().optional().describe('Inclusive lower bound of created_at.'),
  to: isoDateTime().optional().describe('Exclusive upper bound of created_at.'),
  q: z.string().trim().min(1).max(200).optional().describe('Free text over action, target id, reason and request id.'),
});
export type AuditFilters = z.infer<typeof auditFilters>;

export const listAuditQuery = pageQuery(['created_at'], { field: 'created_at', direction: 'desc' }).extend(
  auditFilters.shape,
);
export type ListAuditQuery = z.infer<typeof listAuditQuery>;

export const auditEventBody = z
  .object({
    id: z.guid(),
    created_at: z.date(),
    actor_id: z.string().nullable(),
    actor_email: z.string().nullable(),
    actor_name: z.string().nullable().meta({ description: "The staff member's display name." }),
    action: z.string(),
    target_type: z.string().nullable(),
    target_id: z.string().nullable(),
    target_label: z
      .string()
      .nullable()
      .meta({
        description:
          "What the target is called: a user's email (or display name), a role's name; null for other " +
          'target types and for targets deleted since.',
      }),
    request_id: z.string().nullable(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    reason: z.string().nullable(),
    summary: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry', description: 'One audited staff write: who, what, on which target, before and after.' });
export const auditPage = pagedResponse(auditEventBody);

const facet = z.array(z.object({ value: z.string().nullable(), count: z.number().int() }));
export const auditFacetsBody = z
  .object({
    total: z.number().int(),
    actions: facet,
    actors: z.array(z.object({ value: z.string().nullable(), email: z.string().nullable(), count: z.number().int() })),
    target_types: facet,
  })
  .describe('Counts by action, actor and target type over the filtered audit log.');
