import { z } from 'zod';

/** Longest address the service stores (RFC 5321 paths are shorter; 320 is the spec's bound). */
export const MAX_EMAIL_LENGTH = 320;

/**
 * An email address as every email route takes it (audience members, CSV rows, suppressions, the
 * waitlist): one definition, so an address refused in one place is refused in all of them.
 * Surrounding spaces (a pasted address) are dropped before the check.
 */
export const emailAddress = z.string().trim().email().max(MAX_EMAIL_LENGTH);

export function isEmailAddress(value: string): boolean {
  return emailAddress.safeParse(value).success;
}

/** Addresses are stored lowercased: one mailbox, one row, however it was typed. */
export const normalizedEmail = emailAddress.transform((value) => value.toLowerCase());
