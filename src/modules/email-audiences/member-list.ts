import { csvFirstColumn, isEmailHeader } from './csv-first-column.js';
import { isEmailAddress, MAX_EMAIL_LENGTH } from './email-address.js';
import type { MemberInput } from './schemas.js';

/**
 * Turning operation 9's input into the member list to store: the three member forms or the CSV
 * rows, each address checked, `user_id` members given their account's address, and duplicates
 * removed case-insensitively. Pure: the service looks the users up and hands them in.
 */

/** At most this many members after duplicates are removed (spec "Limits"). */
export const MAX_AUDIENCE_MEMBERS = 50_000;
/** How many refused rows a 400 names; `invalid_count` says how many there were in all. */
export const INVALID_SAMPLE_SIZE = 20;

/** A member before its account is looked up: an address, a user, or both. */
export interface MemberCandidate {
  email?: string;
  user_id?: string;
}

export interface MemberToStore {
  email: string;
  user_id: string | null;
}

export interface InvalidRow {
  value: string;
  /** The CSV line; absent for `members`. */
  line?: number;
}

export interface InvalidUser {
  user_id: string;
  reason: 'not_found' | 'no_email' | 'invalid_email';
}

export interface ReadMembers {
  candidates: MemberCandidate[];
  invalidRows: InvalidRow[];
  source: 'csv' | 'members';
}

/** A refused cell as the error shows it: a megabyte-long cell must not come back whole. */
function sampleValue(value: string): string {
  return value.length > MAX_EMAIL_LENGTH ? `${value.slice(0, MAX_EMAIL_LENGTH)}…` : value;
}

export function readCsvMembers(csv: string): ReadMembers {
  const cells = csvFirstColumn(csv);
  if (cells[0] !== undefined && isEmailHeader(cells[0])) cells.shift();
  const candidates: MemberCandidate[] = [];
  const invalidRows: InvalidRow[] = [];
  for (const cell of cells) {
    if (isEmailAddress(cell.value)) candidates.push({ email: cell.value });
    else invalidRows.push({ value: sampleValue(cell.value), line: cell.line });
  }
  return { candidates, invalidRows, source: 'csv' };
}

/** The `members` array: its addresses were already checked by the body schema. */
export function readListedMembers(members: MemberInput[]): ReadMembers {
  const candidates = members.map((member): MemberCandidate => (typeof member === 'string' ? { email: member } : member));
  return { candidates, invalidRows: [], source: 'members' };
}

/** The distinct user ids the candidates name, to look up in one query. */
export function userIdsOf(candidates: MemberCandidate[]): string[] {
  return [...new Set(candidates.flatMap((c) => (c.user_id === undefined ? [] : [c.user_id.toLowerCase()])))];
}

/**
 * The list to store. A `user_id` member without an address takes its account's; an unknown
 * user, or one with no usable address, is refused. The first occurrence of an address is kept;
 * a later duplicate only adds the user id the kept one lacks.
 */
export function resolveMembers(candidates: MemberCandidate[], userEmails: Map<string, string | null>): { members: MemberToStore[]; invalidUsers: InvalidUser[] } {
  const byEmail = new Map<string, MemberToStore>();
  const invalidUsers: InvalidUser[] = [];
  for (const candidate of candidates) {
    const userId = candidate.user_id?.toLowerCase();
    let email = candidate.email;
    if (userId !== undefined) {
      if (!userEmails.has(userId)) {
        invalidUsers.push({ user_id: userId, reason: 'not_found' });
        continue;
      }
      const accountEmail = userEmails.get(userId) ?? null;
      if (email === undefined) {
        if (accountEmail === null) {
          invalidUsers.push({ user_id: userId, reason: 'no_email' });
          continue;
        }
        if (!isEmailAddress(accountEmail)) {
          invalidUsers.push({ user_id: userId, reason: 'invalid_email' });
          continue;
        }
        email = accountEmail.trim();
      }
    }
    const key = email!.toLowerCase();
    const kept = byEmail.get(key);
    if (kept === undefined) byEmail.set(key, { email: key, user_id: userId ?? null });
    else if (kept.user_id === null && userId !== undefined) kept.user_id = userId;
  }
  return { members: [...byEmail.values()], invalidUsers };
}

/** The 400 `validation_failed` details: capped samples, and how many rows were refused in all. */
export function invalidDetails(invalidRows: InvalidRow[], invalidUsers: InvalidUser[]) {
  const sample = invalidRows.slice(0, INVALID_SAMPLE_SIZE);
  return {
    invalid_emails: sample.map((row) => row.value),
    invalid_count: invalidRows.length + invalidUsers.length,
    ...(sample.some((row) => row.line !== undefined) ? { invalid_lines: sample.map((row) => row.line!) } : {}),
    ...(invalidUsers.length > 0 ? { invalid_users: invalidUsers.slice(0, INVALID_SAMPLE_SIZE) } : {}),
  };
}
