import { z } from 'zod';
import { CODE_DIGITS } from './code.js';

export const startDeletionBody = z
  .object({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Why you leave (optional); kept with the account until it is erased.'),
  })
  .strict();
export type StartDeletionInput = z.infer<typeof startDeletionBody>;

export const deletionStarted = z
  .object({
    expires_at: z.date().describe('When the mailed code stops working.'),
  })
  .describe("A confirmation code was mailed to the account's address; it works until `expires_at`.");

export const confirmDeletionBody = z
  .object({
    code: z
      .string()
      .trim()
      .regex(new RegExp(`^\\d{${CODE_DIGITS}}$`), `must be the ${CODE_DIGITS}-digit code from the mail`)
      .describe('The code mailed by `POST /v1/me/delete`.'),
  })
  .strict();
export type ConfirmDeletionInput = z.infer<typeof confirmDeletionBody>;

export const deletionConfirmed = z
  .object({
    deleted_at: z.date().describe('When the account was deleted (it is refused from now on).'),
    hard_delete_at: z
      .date()
      .describe('When the account and its data are erased for good, unless support restores it before.'),
  })
  .describe('The account is deleted: when, and when it is erased for good.');
export type DeletionConfirmed = z.infer<typeof deletionConfirmed>;

export const userIdParams = z.object({ id: z.guid() });

export const restoreAccountBody = z
  .object({
    reason: z.string().min(3).max(500).describe('Kept in the audit entry.'),
  })
  .strict();
