import { z } from 'zod';
import { ALERT_NAMES } from './alerts.js';

export const alertName = z.enum(ALERT_NAMES);

export const roleIdParams = z.object({ id: z.guid() });

export const setAlertsBody = z
  .object({
    alerts: z
      .array(alertName)
      .max(ALERT_NAMES.length * 2)
      .describe('Every alert the role hears; an empty list silences it. Listed once each.'),
  })
  .strict();
export type SetAlertsInput = z.infer<typeof setAlertsBody>;

export const roleAlertsBody = z
  .object({
    role_id: z.guid(),
    channel: z.string().describe("The realtime channel the role's holders join: `alerts:<role key>`."),
    alerts: z.array(alertName),
  })
  .describe("The alerts a role's holders hear, and the channel they hear them on.");

export const alertCatalogBody = z
  .object({
    data: z.array(z.object({ name: alertName, description: z.string(), readable_with: z.array(z.string()) })),
  })
  .describe('Every alert the service raises, and the permissions that may hear it.');
